package gpulist

import (
	"slices"

	"github.com/gputop-dev/gputop/timeline"
)

// Mode is the arrangement of a several-host GPU list.
type Mode uint8

const (
	// HostLines is one line per host under the summary, scrolling as the
	// GPU list does; enter opens the selected host.
	HostLines Mode = iota
	// Tree is each host's line followed by its GPUs, where every GPU fits.
	Tree
	// OneHost is an opened host's line as a heading, then its GPUs.
	OneHost
)

// List is the selection over a session's GPUs and, with several, its
// hosts.
type List struct {
	// GPU is the selected GPU, a position in the session's GPUs; Top the
	// first on screen (of the opened host's GPUs, in OneHost).
	GPU, Top int
	// Names are the hosts of a session of several, in order; GPUs each
	// host's GPUs (positions), Order every GPU host by host (the tree's
	// order), Of each GPU's host.
	Names []string
	GPUs  [][]int
	Order []int
	Of    []int
	// Host is the selected host, HostTop the first host line on screen in
	// HostLines, Opened says the selected host is opened (enter).
	Host, HostTop int
	Opened        bool
	Mode          Mode
	// Shown is how many host lines HostLines has room for.
	Shown int
	// CoresOf is each host's core devices ("cpu3@node2"), in order.
	CoresOf map[string][]string
}

// Index learns the hosts and their GPUs from the source's description.
func (l *List) Index(info timeline.SourceInfo) {
	g := timeline.GroupByHost(info)
	l.Names, l.GPUs, l.Of = g.Names, g.GPUs, g.Of
	l.Order = l.Order[:0]
	for _, g := range l.GPUs {
		l.Order = append(l.Order, g...)
	}
	l.Host = min(max(0, l.Host), max(0, len(l.Names)-1))
	if len(l.Names) == 0 {
		l.Opened = false
	}
}

// GroupCores files the cores of a session of several hosts by host.
func (l *List) GroupCores(cores []string) {
	l.CoresOf = map[string][]string{}
	for _, c := range cores {
		_, host := timeline.SplitDeviceHost(c)
		l.CoresOf[host] = append(l.CoresOf[host], c)
	}
}

// HostName is the selected host's name, "" without hosts.
func (l *List) HostName() string {
	if l.Host < 0 || l.Host >= len(l.Names) {
		return ""
	}
	return l.Names[l.Host]
}

// Select moves the selection as step says, from where it is (at) in a
// list of n with pages of page: through the hosts (HostLines), the opened
// host's GPUs, the tree's GPUs (hosts, with several) or the GPUs (gpus
// of them, shown on screen at once). hostMoved says it moved the host of
// HostLines: the layout follows the host (its cores, its CPU line).
func (l *List) Select(step func(at, n, page int) int, multiHost bool, gpus, shown int) (hostMoved bool) {
	if multiHost && l.selectHost(step, shown) {
		return l.Mode == HostLines
	}
	l.GPU = max(0, min(gpus-1, step(l.GPU, gpus, max(1, shown))))
	return false
}

// selectHost is Select with several hosts; it says whether there was
// anything to move through.
func (l *List) selectHost(step func(at, n, page int) int, shown int) bool {
	page := max(1, shown)
	var move func(int)
	var n, at int
	switch l.Mode {
	case HostLines:
		n, at, page = len(l.Names), l.Host, max(1, l.Shown)
		move = func(i int) { l.Host = i }
	case OneHost:
		gpus := l.GPUs[l.Host]
		n, at = len(gpus), slices.Index(gpus, l.GPU)
		move = func(i int) { l.GPU = gpus[i] }
	default:
		n, at = len(l.Order), slices.Index(l.Order, l.GPU)
		move = func(i int) { l.GPU = l.Order[i] }
	}
	if n == 0 {
		return false
	}
	move(min(max(0, step(at, n, page)), n-1))
	return true
}

// KeepInView scrolls the list the least that shows the selected GPU (or
// host), never past its end (a resize that makes room shows more), and,
// with several hosts, keeps the selected host and GPU each in the other.
// gpus is how many GPUs the session has, shown how many are on screen.
func (l *List) KeepInView(multiHost bool, gpus, shown int) {
	if multiHost {
		l.keepHostsInView(gpus, shown)
		return
	}
	l.GPU = min(max(0, l.GPU), max(0, gpus-1))
	if shown <= 0 {
		l.Top = 0
		return
	}
	l.Top = follow(l.Top, l.GPU, gpus, shown)
}

// follow is top scrolled the least that shows i of n in shown rows.
func follow(top, i, n, shown int) int {
	top = max(min(top, i), i-shown+1) // the least scroll that shows i
	return min(max(0, top), max(0, n-shown))
}

func (l *List) keepHostsInView(gpus, shown int) {
	if len(l.Names) == 0 {
		l.GPU, l.Top, l.HostTop = 0, 0, 0
		return
	}
	if gpus == 0 {
		// No host has described a GPU yet: the hosts' lines still scroll.
		l.GPU, l.Top = 0, 0
		l.HostTop = min(max(0, l.HostTop, l.Host-l.Shown+1), l.Host, max(0, len(l.Names)-l.Shown))
		return
	}
	l.GPU = min(max(0, l.GPU), gpus-1)
	switch l.Mode {
	case Tree:
		l.Host = l.Of[l.GPU]
		l.Top, l.HostTop = 0, 0
	case OneHost:
		gpus := l.GPUs[l.Host]
		i := slices.Index(gpus, l.GPU)
		if i < 0 {
			i = 0
			l.GPU = gpus[0]
		}
		l.Top = follow(l.Top, i, len(gpus), shown)
	default:
		if l.Of[l.GPU] != l.Host && len(l.GPUs[l.Host]) > 0 {
			l.GPU = l.GPUs[l.Host][0]
		}
		l.HostTop = follow(l.HostTop, l.Host, len(l.Names), l.Shown)
	}
}
