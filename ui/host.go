package ui

import (
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/hostpanel"
)

// viewHost draws the host panel (ui/hostpanel) of the selected host: its
// readings at the cursor, its sparklines over the window, its cores.
func (f *frame) viewHost() []string {
	hostDev := f.hostDevice()
	hv := func(name string) float64 { return f.value(name, hostDev, f.at) }
	p := hostpanel.Panel{Pen: f.pen(), Label: f.hostLabel(), LabelWidth: f.lay.Label, Multi: f.lay.GPURows > 1,
		CoreRows: f.lay.CoreRows}
	if (f.store.Len() > 0 || f.info.MultiHost()) && !f.store.Has(timeline.Key{Name: timeline.HostCPU, Device: hostDev}) {
		msg := "no host readings in this recording"
		switch {
		case f.info.Kind == timeline.Imported || f.info.Recorded == timeline.Imported:
			msg = "no host readings: the imported log has GPUs only"
		case f.play.Grows:
			msg = f.noHostReadings()
		}
		return p.None(msg)
	}
	f.store.Series(timeline.Key{Name: timeline.HostCPU, Device: hostDev}, f.from, f.to, f.cols)
	p.CPUSpark = f.glyph.Spark(f.cols, 0, 100)
	p.CPU, p.IOWait, p.Load = hv(timeline.HostCPU), hv(timeline.HostIOWait), hv(timeline.HostLoad1)
	p.MemUsed, p.MemTotal, p.Swap = hv(timeline.HostMemUsed), hv(timeline.HostMemTotal), hv(timeline.HostSwapUsed)
	p.DiskRead, p.DiskWrite = hv(timeline.HostDiskRead), hv(timeline.HostDiskWrite)
	if p.Multi {
		f.store.Series(timeline.Key{Name: timeline.HostMemUsed, Device: hostDev}, f.from, f.to, f.cols)
		p.MemSpark = f.glyph.Spark(f.cols, 0, p.MemTotal)
		p.HasDisk = f.store.Has(timeline.Key{Name: timeline.HostDiskRead, Device: hostDev})
	}
	if cores := f.hostCores(); len(cores) > 0 {
		p.Cores = make([]float64, len(cores))
		for i, dev := range cores {
			p.Cores[i] = f.value(timeline.CoreBusy, dev, f.at)
		}
	}
	return p.View()
}
