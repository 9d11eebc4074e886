package ui

import (
	"fmt"
	"math"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/timeline/units"
	"github.com/gputop-dev/gputop/ui/gpulist"
	"github.com/gputop-dev/gputop/ui/hostrow"
	"github.com/gputop-dev/gputop/ui/layout"
)

// A session of several hosts (gputop --hosts, an import from Prometheus, a
// replay of either) groups the GPU list by host, arranged as ui/gpulist
// chooses for the terminal (a tree, a line per host, one host opened). A
// host line says how many of its GPUs are busy, their mean and lowest
// utilisation, their power and the worst hint that holds on them; or, where
// the host is not answering, why and since when, in place of the numbers.

// hostScratch is what drawing the hosts' lines keeps between frames.
type hostScratch struct {
	// seen caches when each host's GPUs last had data before a cursor, so a
	// host in a gap costs one search per cursor position, not per frame.
	seen map[string]gapCache
	acc  []float64 // scratch for a host's mean sparkline
	// scratch holds a host's GPUs' figures while they are summed.
	scratch []timeline.GPUFigures
	figs    []hostrow.Figures // every host's, for the frame being drawn
	cnt     []int
}

type gapCache struct {
	at, since time.Time
	samples   int
}

// hostName is the selected host's name, "" in a one-host session.
func (m *Model) hostName() string {
	if !m.info.MultiHost() {
		return ""
	}
	return m.list.HostName()
}

// relayout lays the screen out for its size, the source and (with several
// hosts) the arrangement of the hosts.
func (m *Model) relayout() {
	if !m.info.MultiHost() {
		m.lay = layout.Compute(m.width, m.height, m.info, len(m.cores), m.oneRow)
		if m.jobSeen {
			m.lay.Job = m.lay.Give(1, 1, 1)
		}
	} else {
		m.list.Index(m.info)
		m.lay = m.list.Layout(m.width, m.height, m.info, len(m.list.CoresOf[m.hostName()]), m.oneRow)
	}
	// The allocations panel's rows, and room in the label column for each
	// GPU's owner under its name where the GPUs have a second row.
	m.lay.Alloc = m.lay.Give(m.owned.rows, min(1, m.owned.rows), 3)
	if m.owned.width > 0 && m.lay.GPURows > 1 {
		m.lay.WidenLabel(m.owned.width+2, m.width)
	}
}

// openHost opens the selected host of a list (enter), or closes it (esc).
func (m *Model) openHost(open bool) {
	m.list.Opened = open
	m.relayout()
}

// viewHostGPUs draws the GPU list of a session of several hosts.
func (f *frame) viewHostGPUs() []string {
	hn := &f.list
	// Every host's figures once a frame: the summary counts the hosts
	// without data, and each line on screen shows its own.
	events := f.store.EventsAt(f.at)
	mo := f.store.MomentAt(f.at)
	idle := analysis.DefaultHintOptions()
	f.drawn.hosts.figs = f.drawn.hosts.figs[:0]
	for h := range hn.Names {
		f.drawn.hosts.figs = append(f.drawn.hosts.figs, f.hostFigures(h, f.at, mo, &idle, events))
	}
	var out []string
	host := func(h int) {
		f.hitRows(len(out), 1, hitHost, h)
		out = append(out, f.viewHostLine(h))
	}
	switch hn.Mode {
	case gpulist.OneHost:
		host(hn.Host)
		gpus := hn.GPUs[hn.Host]
		for i := f.list.Top; i < min(len(gpus), f.list.Top+f.lay.GPUsShown); i++ {
			out = f.viewGPU(out, gpus[i])
		}
	case gpulist.Tree:
		out = append(out, f.viewHostSummary())
		for h, gpus := range hn.GPUs {
			host(h)
			for _, pos := range gpus {
				out = f.viewGPU(out, pos)
			}
		}
	default:
		out = append(out, f.viewHostSummary())
		for h := hn.HostTop; h < min(len(hn.Names), hn.HostTop+hn.Shown); h++ {
			host(h)
		}
	}
	return out
}

// hostSpark is the mean utilisation of host h's GPUs in each column; a
// column where none of them has data is a gap.
func (f *frame) hostSpark(h int) string {
	hn := &f.list
	n := len(f.cols)
	if cap(f.drawn.hosts.acc) < n {
		f.drawn.hosts.acc, f.drawn.hosts.cnt = make([]float64, n), make([]int, n)
	}
	acc, cnt := f.drawn.hosts.acc[:n], f.drawn.hosts.cnt[:n]
	clear(acc)
	clear(cnt)
	for _, pos := range hn.GPUs[h] {
		f.store.SeriesOf(f.series.at(f.store, f.info.GPUs, pos).util, f.from, f.to, f.cols)
		for i, c := range f.cols {
			if !c.Empty() {
				acc[i] += c.Mean
				cnt[i]++
			}
		}
	}
	for i := range f.cols {
		f.cols[i] = timeline.Agg{Min: math.NaN(), Mean: math.NaN(), Max: math.NaN()}
		if cnt[i] > 0 {
			f.cols[i].Mean = acc[i] / float64(cnt[i])
		}
	}
	return f.glyph.Spark(f.cols, 0, 100)
}

// viewHostLine is one host's line (ui/hostrow): its name, the mean
// utilisation of its GPUs over the window, and what holds at the cursor.
func (f *frame) viewHostLine(h int) string {
	hn := &f.list
	spark := f.hostSpark(h) // fills f.cols with this host's columns
	bars := len(f.cols)
	for bars > 0 && f.cols[bars-1].Empty() {
		bars--
	}
	return hostrow.Draw(f.pen(), hostrow.Row{
		Name: hn.Names[h], Selected: h == hn.Host && hn.Mode == gpulist.HostLines,
		LabelWidth: f.lay.Label, MeanLabel: f.lay.GPURows > 1,
		Spark: spark, Bars: bars, Figures: f.drawn.hosts.figs[h], Owners: f.hostOwners(hn.GPUs[h], f.at),
	})
}

// viewHostSummary is the pinned line over the hosts: how many and which are
// in view, the spread of utilisation across every GPU, how many are idle,
// how many hosts are not answering, and the worst hint.
// " 8 hosts, 64 GPUs  util lo 0% mean 80% hi 99%  3 idle  1 unreachable  WARN straggler-host"
func (f *frame) viewHostSummary() string {
	hn := &f.list
	s := f.summarizeGPUs(f.at)
	gpus := fmt.Sprintf("%d GPUs", s.all-s.slices)
	if s.slices > 0 {
		gpus += ", " + units.Count(s.slices, "MIG slice")
	}
	head := fmt.Sprintf(" %d hosts, %s", len(hn.Names), gpus)
	if hn.Mode == gpulist.HostLines && hn.Shown < len(hn.Names) {
		head = fmt.Sprintf(" hosts %d-%d of %d, %s", hn.HostTop+1, min(len(hn.Names), hn.HostTop+hn.Shown), len(hn.Names), gpus)
	}
	return f.summaryLine(f.newLine(f.width), s, head, true).String()
}

// hostCores is the selected host's core devices (all of them in a one-host
// session).
func (f *frame) hostCores() []string {
	if !f.info.MultiHost() {
		return f.cores
	}
	return f.list.CoresOf[f.hostName()]
}

// hostDevice is the selected host's device for host figures: "host", or
// "host@node3" in a session of several.
func (m *Model) hostDevice() string {
	return timeline.DeviceOnHost(timeline.HostDevice, m.hostName())
}

// hostLabel names the host row: "host", or the selected host's name in a
// session of several.
func (m *Model) hostLabel() string {
	if name := m.hostName(); name != "" {
		return m.fit.FitWords(name, 16, false)
	}
	return "host"
}
