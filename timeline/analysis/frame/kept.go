package frame

import (
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// Kept is what the views of one Engine's frame share, and what the
// Engine keeps for its rules between one question and the next: the
// Engine's own frame, the job's progress and markers, the figures that
// froze, the hosts' layout, and everything that cannot change once its
// columns are closed (the grid windows, the rules' verdicts over them and
// what each rule keeps of its own, keep). Asked about a later moment, the
// rules judge only what came since; asked about an earlier one (a replay
// stepped back), they work from the kept verdicts.
type Kept struct {
	// Master is the Engine's frame, every column so far; Samples is how
	// many samples it has taken.
	Master  *Frame
	Samples int
	Job     JobTrack   // the job's progress and markers (job.go)
	Owners  OwnerTrack // who each GPU was allocated to (owners.go)
	Frozen  FrozenLog  // figures that stopped changing (frozen.go)

	// info is the session's description, and layout its hosts as made
	// from it (Layout); stale says info was handed again since.
	info   timeline.SourceInfo
	layout *Layout
	stale  bool

	windows map[int]*gridWindows
	holds   map[HoldKey]*holdState
	rules   map[string]any
}

// Init makes the Kept of the Engine's frame master, for a session
// described by info.
func (k *Kept) Init(master *Frame, info timeline.SourceInfo) {
	k.Master, k.info = master, info
	k.Reset()
}

// Reset forgets every verdict and what every rule kept: columns already
// judged were judged again (a freeze found makes them unknown).
func (k *Kept) Reset() {
	k.windows = map[int]*gridWindows{}
	k.holds = map[HoldKey]*holdState{}
	k.rules = map[string]any{}
	k.layout, k.stale = nil, false
}

// SetInfo takes a new description of the session: the hosts' layout is
// checked against it when next asked.
func (k *Kept) SetInfo(info timeline.SourceInfo) {
	k.info = info
	k.stale = true
}

// Keep is what a rule keeps between questions under key (its id): a T made
// empty the first time, forgotten with every verdict (Kept.Reset). A
// rule keeps there only what closed columns decide.
func Keep[T any](f *Frame, key string) *T {
	if v, ok := f.Kept.rules[key]; ok {
		return v.(*T)
	}
	v := new(T)
	f.Kept.rules[key] = v
	return v
}

// gridWindows are the grid windows of one length, as far as the frame
// reaches: the first at the frame's first column, then one on every
// multiple of half the length.
type gridWindows struct {
	ws   []Span
	next time.Time // where the next grid window starts
}

// grid returns the grid windows of mult × Window (width columns, length
// of time) that fit in the Engine's frame, in order.
func (k *Kept) grid(mult, width int, length time.Duration) []Span {
	gw := k.windows[mult]
	master := k.Master
	stride := length / 2
	// ceil is the first multiple of the stride at or after t.
	ceil := func(t time.Time) time.Time {
		c := t.Truncate(stride)
		if c.Before(t) {
			c = c.Add(stride)
		}
		return c
	}
	if gw == nil {
		gw = &gridWindows{next: ceil(master.From)}
		if lo := master.Col(gw.next); lo > 0 {
			gw.ws = append(gw.ws, Span{0, width})
		}
		k.windows[mult] = gw
	}
	for {
		lo := master.Col(gw.next)
		if lo+width > master.N {
			break
		}
		if n := len(gw.ws); n == 0 || lo > gw.ws[n-1].Lo {
			gw.ws = append(gw.ws, Span{lo, lo + width})
		}
		if t := master.Time(lo); t.After(gw.next) {
			// gw.next fell in a pause the frame skips: the windows go on
			// from where sampling resumed as they began at the first
			// column, one there and then on the multiples of the stride.
			gw.next = ceil(t)
		} else {
			gw.next = gw.next.Add(stride)
		}
	}
	return gw.ws
}

// holdState returns the kept state of key if it has not gone past grid
// windows, else a fresh one that shares its verdicts (a view of an earlier
// moment).
func (k *Kept) holdState(key HoldKey, grid int) *holdState {
	h := k.holds[key]
	if h == nil {
		h = &holdState{live: true}
		k.holds[key] = h
	}
	if h.done > grid {
		return &holdState{verdicts: h.verdicts, vbase: h.vbase}
	}
	return h
}

// VerdictBytes is what the verdicts kept of grid windows hold.
func (k *Kept) VerdictBytes() int {
	n := 0
	for _, h := range k.holds {
		n += cap(h.verdicts)
	}
	return n
}

// Now says whether the view is of the Engine's latest moment: its closed
// columns are all the Engine has closed, so what a rule scans of them it
// may keep.
func (f *Frame) Now() bool { return f.Kept != nil && f.Closed() == f.Kept.Master.N-1 }
