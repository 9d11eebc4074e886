package analysis

import (
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// frameKept is what the views of one Engine's frame share, and what the
// Engine keeps for its rules between one question and the next: the
// Engine's own frame, the job's progress and markers, the figures that
// froze, the hosts' layout, and everything that cannot change once its
// columns are closed (the grid windows, the rules' verdicts over them and
// what each rule keeps of its own, keep). Asked about a later moment, the
// rules judge only what came since; asked about an earlier one (a replay
// stepped back), they work from the kept verdicts.
type frameKept struct {
	// master is the Engine's frame, every column so far; samples is how
	// many samples it has taken.
	master  *hintFrame
	samples int
	job     jobTrack  // the job's progress and markers (hints_progress.go)
	frozen  frozenLog // figures that stopped changing (hints_frozen.go)

	// info is the session's description, and layout its hosts as made
	// from it (hostLayout); stale says info was handed again since.
	info   timeline.SourceInfo
	layout *hostLayout
	stale  bool

	windows map[int]*gridWindows
	holds   map[holdKey]*holdState
	rules   map[string]any
}

// init makes the Kept of the Engine's frame master, for a session
// described by info.
func (k *frameKept) init(master *hintFrame, info timeline.SourceInfo) {
	k.master, k.info = master, info
	k.reset()
}

// reset forgets every verdict and what every rule kept: columns already
// judged were judged again (a freeze found makes them unknown).
func (k *frameKept) reset() {
	k.windows = map[int]*gridWindows{}
	k.holds = map[holdKey]*holdState{}
	k.rules = map[string]any{}
	k.layout, k.stale = nil, false
}

// setInfo takes a new description of the session: the hosts' layout is
// checked against it when next asked.
func (k *frameKept) setInfo(info timeline.SourceInfo) {
	k.info = info
	k.stale = true
}

// keep is what a rule keeps between questions under key (its id): a T made
// empty the first time, forgotten with every verdict (frameKept.reset). A
// rule keeps there only what closed columns decide.
func keep[T any](f *hintFrame, key string) *T {
	if v, ok := f.kept.rules[key]; ok {
		return v.(*T)
	}
	v := new(T)
	f.kept.rules[key] = v
	return v
}

// keepInView is what a rule keeps under key for this view alone: a T made
// empty the first time this view asks.
func keepInView[T any](f *hintFrame, key string) *T {
	if v, ok := f.inView[key]; ok {
		return v.(*T)
	}
	if f.inView == nil {
		f.inView = map[string]any{}
	}
	v := new(T)
	f.inView[key] = v
	return v
}

// gridWindows are the grid windows of one length, as far as the frame
// reaches: the first at the frame's first column, then one on every
// multiple of half the length.
type gridWindows struct {
	ws   []hintSpan
	next time.Time // where the next grid window starts
}

// grid returns the grid windows of mult × Window (width columns, length
// of time) that fit in the Engine's frame, in order.
func (k *frameKept) grid(mult, width int, length time.Duration) []hintSpan {
	gw := k.windows[mult]
	master := k.master
	if gw == nil {
		gw = &gridWindows{}
		stride := length / 2
		gw.next = master.from.Truncate(stride)
		if gw.next.Before(master.from) {
			gw.next = gw.next.Add(stride)
		}
		if lo := master.col(gw.next); lo > 0 {
			gw.ws = append(gw.ws, hintSpan{0, width})
		}
		k.windows[mult] = gw
	}
	for {
		lo := master.col(gw.next)
		if lo+width > master.n {
			break
		}
		if n := len(gw.ws); n == 0 || lo > gw.ws[n-1].lo {
			gw.ws = append(gw.ws, hintSpan{lo, lo + width})
		}
		gw.next = gw.next.Add(length / 2)
	}
	return gw.ws
}

// holdState returns the kept state of key if it has not gone past grid
// windows, else a fresh one that shares its verdicts (a view of an earlier
// moment).
func (k *frameKept) holdState(key holdKey, grid int) *holdState {
	h := k.holds[key]
	if h == nil {
		h = &holdState{live: true}
		k.holds[key] = h
	}
	if h.done > grid {
		return &holdState{verdicts: h.verdicts}
	}
	return h
}

// now says whether the view is of the Engine's latest moment: its closed
// columns are all the Engine has closed, so what a rule scans of them it
// may keep.
func (f *hintFrame) now() bool { return f.kept != nil && f.closed() == f.kept.master.n-1 }
