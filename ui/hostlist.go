package ui

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/timeline/units"
	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/hostrow"
	"github.com/gputop-dev/gputop/ui/layout"
)

// A session of several hosts (gputop --hosts, an import from Prometheus, a
// replay of either) groups the GPU list by host. The list takes one of three
// arrangements, chosen again on every resize and on enter and esc:
//
//   - tree: under a summary of them all, each host's line followed by its
//     GPUs, when every GPU fits whole at once: that is, when a one-host
//     screen with as many rows fewer as there are host lines and the summary
//     would show all the GPUs without scrolling, with the rows per GPU it
//     would choose (2 hosts of 8 GPUs at 120x40 and 200x50).
//   - list: otherwise (80x24, or 64 hosts anywhere), one line per host under
//     the summary, scrolling as the GPU list does; enter opens the selected
//     host.
//   - open: an opened host's line as a heading, then its GPUs as a one-host
//     screen draws them (scrolling if they do not fit); esc or backspace
//     goes back to the list.
//
// A host line says how many of its GPUs are busy, their mean and lowest
// utilisation, their power and the worst hint that holds on them; or, where
// the host is not answering, why and since when, in place of the numbers.

// hostMode is the arrangement of a several-host GPU list.
type hostMode uint8

const (
	hostList hostMode = iota
	hostTree
	hostOpen
)

// hostNav is the screen's view of the hosts: which GPUs each has, which
// host is selected, and how the list is arranged for this terminal.
type hostNav struct {
	names []string
	gpus  [][]int // positions in info.GPUs of each host's GPUs, in order
	order []int   // every GPU's position, host by host: the tree's order
	of    []int   // the host of each position in info.GPUs
	sel   int     // selected host
	top   int     // first host line on screen in the list
	open  bool    // the selected host is opened (enter)
	mode  hostMode
	shown int // host lines the list has room for

	// coresOf is each host's core devices ("cpu3@node2"), in order.
	coresOf map[string][]string
	// seen caches when each host's GPUs last had data before a cursor, so a
	// host in a gap costs one search per cursor position, not per frame.
	seen map[string]gapCache
	acc  []float64 // scratch for a host's mean sparkline
	// scratch holds a host's GPUs' figures while they are summed.
	scratch []timeline.GPUFigures
	figs    []hostFigures // every host's, for the frame being drawn
	cnt     []int
}

type gapCache struct {
	at, since time.Time
	samples   int
}

// index learns the hosts and their GPUs from the source's description.
func (hn *hostNav) index(info timeline.SourceInfo) {
	g := timeline.GroupByHost(info)
	hn.names, hn.gpus, hn.of = g.Names, g.GPUs, g.Of
	hn.order = hn.order[:0]
	for _, g := range hn.gpus {
		hn.order = append(hn.order, g...)
	}
	hn.sel = min(max(0, hn.sel), max(0, len(hn.names)-1))
	if len(hn.names) == 0 {
		hn.open = false
	}
}

// hostName is the selected host's name, "" in a one-host session.
func (m *Model) hostName() string {
	if !m.info.MultiHost() || len(m.hosts.names) == 0 {
		return ""
	}
	return m.hosts.names[m.hosts.sel]
}

// relayout lays the screen out for its size, the source and (with several
// hosts) the arrangement of the hosts.
func (m *Model) relayout() {
	if !m.info.MultiHost() {
		m.lay = layout.Compute(m.width, m.height, m.info, len(m.cores), m.oneRow)
		if m.jobSeen {
			m.lay = m.lay.WithJob()
		}
		return
	}
	m.hosts.index(m.info)
	m.lay = m.hostLayout(m.width, m.height)
}

// hostLabelWidth is the label column of host lines: the longest name (cut
// at 16) between spaces.
func hostLabelWidth(names []string) int {
	n := 0
	for _, s := range names {
		n = max(n, min(16, len([]rune(s))))
	}
	return n + 2
}

// hostValueWidth is the room right of a host line's sparkline:
// "  7/8 busy util  92% lo  12%  5.1kW WARN straggler-host".
const hostValueWidth = 10 + 1 + 9 + 1 + 7 + 1 + 6 + 22

func (m *Model) hostLayout(w, h int) layout.Layout {
	hn := &m.hosts
	cores := len(hn.coresOf[m.hostName()])
	label := hostLabelWidth(hn.names)
	if len(hn.names) == 0 {
		return layout.Compute(w, h, m.info, cores, m.oneRow)
	}
	// Where the rows of a layout computed one row shorter (for the summary
	// or heading) scroll, its own summary row takes that place and the row
	// saved stays blank; below the height that allows, the heading takes
	// the summary's row.
	oneShorter := func(info timeline.SourceInfo) layout.Layout {
		l := layout.Compute(w, h-1, info, cores, m.oneRow)
		switch {
		case !l.Fits:
			l = layout.Compute(w, h, info, cores, m.oneRow)
		case l.Summary == 1:
			l.BlankRows++
		}
		l.Summary = 1
		return l
	}
	if hn.open {
		sub := m.info
		sub.GPUs = make([]timeline.GPUInfo, 0, len(hn.gpus[hn.sel]))
		for _, pos := range hn.gpus[hn.sel] {
			sub.GPUs = append(sub.GPUs, m.info.GPUs[pos])
		}
		hn.mode = hostOpen
		l := oneShorter(sub)
		l.WidenLabel(label, w)
		return l
	}
	if l := layout.Compute(w, h-len(hn.names)-1, m.info, cores, m.oneRow); l.Fits && l.Summary == 0 && len(m.info.GPUs) > 0 {
		hn.mode = hostTree
		l.Summary = 1
		l.WidenLabel(label, w)
		return l
	}
	hn.mode = hostList
	// The list laid out as if each host were a GPU, then given one row a
	// host and the one-row host panel: what the GPU blocks and the RAM row
	// would have taken goes to the detail graph. One row a host keeps the
	// sparklines as long as the numbers allow, at every size.
	sub := m.info
	sub.GPUs = make([]timeline.GPUInfo, len(hn.names))
	for i := range sub.GPUs {
		sub.GPUs[i] = timeline.GPUInfo{Index: i, GPM: layout.AnyGPM(m.info)}
	}
	l := oneShorter(sub)
	extra := l.GPUsShown * (l.GPURows - 1)
	if l.GPURows > 1 {
		extra++
		l.GPURows = 1
	}
	if l.Detail > 0 {
		l.Detail += extra
	} else {
		l.BlankRows += extra
	}
	hn.shown = l.GPUsShown
	l.Values = hostValueWidth
	// As wide as the hosts' names, and never narrower than the rows under
	// them need ("phase", " cpus"): hosts named a and b cut those to "pha".
	l.Label = layout.RowLabelWidth
	l.WidenLabel(label, w)
	return l
}

// keepHostSelectionInView keeps the selected host and GPU on screen and
// each in the other: the selected GPU is always one of the selected host's.
func (m *Model) keepHostSelectionInView() {
	hn := &m.hosts
	if len(hn.names) == 0 {
		m.gpu, m.gpuTop, hn.top = 0, 0, 0
		return
	}
	if len(m.info.GPUs) == 0 {
		// No host has described a GPU yet: the hosts' lines still scroll.
		m.gpu, m.gpuTop = 0, 0
		hn.top = min(max(0, hn.top, hn.sel-hn.shown+1), hn.sel, max(0, len(hn.names)-hn.shown))
		return
	}
	m.gpu = min(max(0, m.gpu), len(m.info.GPUs)-1)
	switch hn.mode {
	case hostTree:
		hn.sel = hn.of[m.gpu]
		m.gpuTop, hn.top = 0, 0
	case hostOpen:
		gpus := hn.gpus[hn.sel]
		i := indexOf(gpus, m.gpu)
		if i < 0 {
			i = 0
			m.gpu = gpus[0]
		}
		shown := m.lay.GPUsShown
		if i < m.gpuTop {
			m.gpuTop = i
		}
		if i >= m.gpuTop+shown {
			m.gpuTop = i - shown + 1
		}
		m.gpuTop = min(max(0, m.gpuTop), max(0, len(gpus)-shown))
	default:
		if hn.of[m.gpu] != hn.sel && len(hn.gpus[hn.sel]) > 0 {
			m.gpu = hn.gpus[hn.sel][0]
		}
		if hn.sel < hn.top {
			hn.top = hn.sel
		}
		if hn.sel >= hn.top+hn.shown {
			hn.top = hn.sel - hn.shown + 1
		}
		hn.top = min(max(0, hn.top), max(0, len(hn.names)-hn.shown))
	}
}

func indexOf(s []int, v int) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// hostSelect moves through the hosts, or a host's GPUs, as step says
// from where the selection is (at) in a list of n with pages of page. It
// says whether there was anything to move through.
func (m *Model) hostSelect(step func(at, n, page int) int) bool {
	hn := &m.hosts
	page := max(1, m.lay.GPUsShown)
	var move func(int)
	var n int
	var at int
	switch hn.mode {
	case hostList:
		n, at, page = len(hn.names), hn.sel, max(1, hn.shown)
		move = func(i int) { hn.sel = i }
	case hostOpen:
		gpus := hn.gpus[hn.sel]
		n, at = len(gpus), indexOf(gpus, m.gpu)
		move = func(i int) { m.gpu = gpus[i] }
	default:
		n, at = len(hn.order), indexOf(hn.order, m.gpu)
		move = func(i int) { m.gpu = hn.order[i] }
	}
	if n == 0 {
		return false
	}
	move(min(max(0, step(at, n, page)), n-1))
	if hn.mode == hostList {
		// The layout follows the host: its cores, its CPU line.
		m.relayout()
	}
	return true
}

// openHost opens the selected host of a list (enter), or closes it (esc).
func (m *Model) openHost(open bool) {
	m.hosts.open = open
	m.relayout()
}

// viewHostGPUs draws the GPU list of a session of several hosts.
func (m *Model) viewHostGPUs(f *frame) []string {
	hn := &m.hosts
	// Every host's figures once a frame: the summary counts the hosts
	// without data, and each line on screen shows its own.
	events := m.store.EventsAt(f.at)
	mo := m.store.MomentAt(f.at)
	idle := analysis.DefaultHintOptions()
	hn.figs = hn.figs[:0]
	for h := range hn.names {
		hn.figs = append(hn.figs, m.hostFigures(h, f.at, mo, &idle, events))
	}
	var out []string
	gpu := func(pos int) {
		rows := m.viewGPU(f, pos, m.info.GPUs[pos])
		m.hitRows(len(out), len(rows), hitGPU, pos)
		out = append(out, rows...)
	}
	host := func(h int) {
		m.hitRows(len(out), 1, hitHost, h)
		out = append(out, m.viewHostLine(f, h))
	}
	switch hn.mode {
	case hostOpen:
		host(hn.sel)
		gpus := hn.gpus[hn.sel]
		for i := m.gpuTop; i < min(len(gpus), m.gpuTop+m.lay.GPUsShown); i++ {
			gpu(gpus[i])
		}
	case hostTree:
		out = append(out, m.viewHostSummary(f))
		for h, gpus := range hn.gpus {
			host(h)
			for _, pos := range gpus {
				gpu(pos)
			}
		}
	default:
		out = append(out, m.viewHostSummary(f))
		for h := hn.top; h < min(len(hn.names), hn.top+hn.shown); h++ {
			host(h)
		}
	}
	return out
}

// hostSpark is the mean utilisation of host h's GPUs in each column; a
// column where none of them has data is a gap.
func (m *Model) hostSpark(f *frame, h int) string {
	hn := &m.hosts
	n := len(f.cols)
	if cap(hn.acc) < n {
		hn.acc, hn.cnt = make([]float64, n), make([]int, n)
	}
	acc, cnt := hn.acc[:n], hn.cnt[:n]
	clear(acc)
	clear(cnt)
	for _, pos := range hn.gpus[h] {
		m.store.Series(timeline.Key{Name: timeline.GPUUtil, Device: timeline.GPUDevice(m.info.GPUs[pos].Index)}, f.from, f.to, f.cols)
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
	return m.glyph.Spark(f.cols, 0, 100)
}

// viewHostLine is one host's line (ui/hostrow): its name, the mean
// utilisation of its GPUs over the window, and what holds at the cursor.
func (m *Model) viewHostLine(f *frame, h int) string {
	hn := &m.hosts
	fig := hn.figs[h]
	spark := m.hostSpark(f, h) // fills f.cols with this host's columns
	bars := len(f.cols)
	for bars > 0 && f.cols[bars-1].Empty() {
		bars--
	}
	return hostrow.Draw(m.pen(), hostrow.Row{
		Name: hn.names[h], Selected: h == hn.sel && hn.mode == hostList,
		LabelWidth: m.lay.Label, MeanLabel: m.lay.GPURows > 1,
		Spark: spark, Bars: bars,
		GPUs: fig.gpus, Busy: fig.busy, Mean: fig.mean, Lo: fig.lo, Power: fig.power, Worst: fig.worst,
		Problem: fig.problem, Gap: fig.gap, Since: fig.since, Waiting: fig.waiting,
	})
}

// viewHostSummary is the pinned line over the hosts: how many and which are
// in view, the spread of utilisation across every GPU, how many are idle,
// how many hosts are not answering, and the worst hint.
// " 8 hosts, 64 GPUs  util lo 0% mean 80% hi 99%  3 idle  1 unreachable  WARN straggler-host"
func (m *Model) viewHostSummary(f *frame) string {
	hn := &m.hosts
	s := m.summarizeGPUs(f.at)
	ln := m.newLine(m.width)
	gpus := fmt.Sprintf("%d GPUs", s.all-s.slices)
	if s.slices > 0 {
		gpus += ", " + units.Count(s.slices, "MIG slice")
	}
	head := fmt.Sprintf(" %d hosts, %s", len(hn.names), gpus)
	if hn.mode == hostList && hn.shown < len(hn.names) {
		head = fmt.Sprintf(" hosts %d-%d of %d, %s", hn.top+1, min(len(hn.names), hn.top+hn.shown), len(hn.names), gpus)
	}
	ln.Add(head, m.theme.Title)
	m.addUtilSummary(ln, s)
	down := 0
	for _, fig := range hn.figs {
		if fig.problem != "" || fig.gap {
			down++
		}
	}
	if down > 0 {
		ln.Add("  ", draw.Ink{}).Add(fmt.Sprintf("%d without data", down), m.theme.Crit)
	}
	if s.worst != nil {
		k := m.theme.Warn
		if s.worst.Severity == timeline.Critical {
			k = m.theme.Crit
		}
		ln.Add("  ", draw.Ink{}).Add(strings.ToUpper(s.worst.Severity.String())+" "+s.worst.ID, k)
	}
	return ln.String()
}

// hostCores is the selected host's core devices (all of them in a one-host
// session).
func (m *Model) hostCores() []string {
	if !m.info.MultiHost() {
		return m.cores
	}
	return m.hosts.coresOf[m.hostName()]
}

// hostDevice is the selected host's device for host figures: "host", or
// "host@node3" in a session of several.
func (m *Model) hostDevice() string {
	return timeline.DeviceOnHost(timeline.HostDevice, m.hostName())
}

// groupCores files the cores of a session of several hosts by host.
func (hn *hostNav) groupCores(cores []string) {
	hn.coresOf = map[string][]string{}
	for _, c := range cores {
		_, host := timeline.SplitDeviceHost(c)
		hn.coresOf[host] = append(hn.coresOf[host], c)
	}
}

// hostLabel names the host row: "host", or the selected host's name in a
// session of several.
func (m *Model) hostLabel() string {
	if name := m.hostName(); name != "" {
		return m.fit.FitWords(name, 16, false)
	}
	return "host"
}
