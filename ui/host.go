package ui

import (
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/hostpanel"
)

// viewHost draws the host panel (ui/hostpanel) of the selected host: its
// readings at the cursor, its sparklines over the window, its cores.
func (m *Model) viewHost(f *frame) []string {
	hostDev := m.hostDevice()
	hv := func(name string) float64 { return m.value(name, hostDev, f.at) }
	p := hostpanel.Panel{Pen: m.pen(), Label: m.hostLabel(), LabelWidth: m.lay.Label, Multi: m.lay.GPURows > 1,
		CoreRows: m.lay.CoreRows}
	if (m.store.Len() > 0 || m.info.MultiHost()) && !m.store.Has(timeline.Key{Name: timeline.HostCPU, Device: hostDev}) {
		msg := "no host readings in this recording"
		switch {
		case m.info.Kind == timeline.Imported || m.info.Recorded == timeline.Imported:
			msg = "no host readings: the imported log has GPUs only"
		case m.play.Grows:
			msg = m.noHostReadings()
		}
		return p.None(msg)
	}
	m.store.Series(timeline.Key{Name: timeline.HostCPU, Device: hostDev}, f.from, f.to, f.cols)
	p.CPUSpark = m.glyph.Spark(f.cols, 0, 100)
	p.CPU, p.IOWait, p.Load = hv(timeline.HostCPU), hv(timeline.HostIOWait), hv(timeline.HostLoad1)
	p.MemUsed, p.MemTotal, p.Swap = hv(timeline.HostMemUsed), hv(timeline.HostMemTotal), hv(timeline.HostSwapUsed)
	p.DiskRead, p.DiskWrite = hv(timeline.HostDiskRead), hv(timeline.HostDiskWrite)
	if p.Multi {
		m.store.Series(timeline.Key{Name: timeline.HostMemUsed, Device: hostDev}, f.from, f.to, f.cols)
		p.MemSpark = m.glyph.Spark(f.cols, 0, p.MemTotal)
		p.HasDisk = m.store.Has(timeline.Key{Name: timeline.HostDiskRead, Device: hostDev})
	}
	if cores := m.hostCores(); len(cores) > 0 {
		p.Cores = make([]float64, len(cores))
		for i, dev := range cores {
			p.Cores[i] = m.value(timeline.CoreBusy, dev, f.at)
		}
	}
	return p.View()
}
