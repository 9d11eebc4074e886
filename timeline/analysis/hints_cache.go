package analysis

import (
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// hintCache is what an Engine keeps between one question and the next:
// everything that cannot change once its columns are closed. Asked about a
// later moment, the Engine judges only what came since; asked about an
// earlier one (a replay stepped back), it works from the kept verdicts.
type hintCache struct {
	windows   map[int]*gridWindows
	holds     map[holdKey]*holdState
	imbalance [2][]imbalanceVerdict // for in false, in true
	stalls    map[int]*stallScan
	periodic  map[int]*periodicMemo
	described map[string]described

	// hints is the answer last given, for the view of n columns over
	// samples added; asked again before anything changes, it is given again.
	hintsN, hintsSamples int
	hintsOpen            bool // the view reached the column being filled
	hints                []timeline.Hint
}

func (c *hintCache) init() {
	c.windows = map[int]*gridWindows{}
	c.holds = map[holdKey]*holdState{}
	c.stalls = map[int]*stallScan{}
	c.periodic = map[int]*periodicMemo{}
	c.described = map[string]described{}
	c.hintsN = -1
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
func (c *hintCache) grid(f *hintFrame, mult, width int, length time.Duration) []hintSpan {
	gw := c.windows[mult]
	master := &f.eng.f
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
		c.windows[mult] = gw
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
func (c *hintCache) holdState(key holdKey, grid int) *holdState {
	h := c.holds[key]
	if h == nil {
		h = &holdState{live: true}
		c.holds[key] = h
	}
	if h.done > grid {
		return &holdState{verdicts: h.verdicts}
	}
	return h
}

// described is a hint as a rule described an episode, kept by the
// episode's rule, key, GPUs and columns: a description uses only the
// columns of the episode, so it is the same whenever it is asked for.
type described struct {
	hint timeline.Hint
	ok   bool
}

// maxDescribed bounds the descriptions kept; past it they are forgotten
// and made again as asked.
const maxDescribed = 4096
