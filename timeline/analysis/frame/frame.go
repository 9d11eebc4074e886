package frame

import (
	"math"
	"sort"
	"time"

	"github.com/gputop-dev/gputop/timeline/units"
)

// Frame is the timeline on a regular grid of columns (one per sampling
// interval and at least a second wide), with every GPU's state classified
// per column. The Engine keeps one that grows as samples arrive; rules
// judge a view of it cut at the moment asked about (Frame.View), so that
// what they say of a moment never depends on what came after it.
type Frame struct {
	Opts     Options
	From     time.Time     // the start of column 0
	Step     time.Duration // the width of a column
	Interval time.Duration // the sampling interval
	N        int
	// HeldFrom is the first column whose values the Engine still holds:
	// those before it were let go of (Engine.SetBudget), and read unknown.
	HeldFrom int
	// Pauses are where the session stopped sampling for longer than the
	// rules look (Pause): the columns go on after it, at the time
	// sampling resumed, so a pause of a day costs no day of columns.
	Pauses []Pause
	// First is the session's first sample, and Last the view's last: the
	// session runs between them as far as the view goes (Held). Zero in a
	// frame built alone in a test, whose session is its columns.
	First, Last time.Time
	GPUs        []*GPU
	// Hosts are the hosts' columns: the first that of the session's own
	// host (or of GPUs that name none), then one for each host of a
	// session of several, as first seen. GPU.Host is a GPU's.
	Hosts []Host
	// Kept is what views share: windows judged, stalls found, the job,
	// the hosts (Kept). Nil for a frame built alone in a test.
	Kept *Kept
	// InView is what a rule keeps for this view alone, nil in a new view:
	// what it judged of windows that reach the open column, which the
	// Engine does not keep. One slot, the cross-host rules' (the hosts
	// over such windows, asked for once per host): a map of its own costs
	// no allocation to hold here, a keyed store cost two more a view.
	InView any
}

// State is what a GPU was doing in one column.
type State uint8

const (
	Unknown State = iota // no utilisation, SM activity or clock and power
	Idle                 // SM activity below IdleSM where known, else utilisation below IdleUtil
	Low                  // working, below BusyWork
	Busy                 // working, at or above BusyWork
	Waiting              // utilisation high, but SM activity or power says it is spinning
)

// GPU is one GPU's columns. A metric the GPU never reported before the
// view's end has none (Has is false); a column without a value is NaN
// (throttle: -1).
type GPU struct {
	Index int
	// Slot is the order the Engine first saw the GPU in: its place in the
	// Engine's column sums.
	Slot int
	// Host is the GPU's host's place in Frame.Hosts (HostOf).
	Host int

	Util, SM, Power, Mem, Temp, Clock, Bus Floats
	Throttle                               Col[int32]
	// Limit and MemTotal are the power limit (W) and memory (bytes) known
	// at the view's end; NaN if unknown.
	Limit, MemTotal float64
	State           Col[State]
	// Work is SM activity where known, else utilisation, and 0 while
	// busy-waiting: what the GPU really got done.
	Work Floats

	// What was known at each column: the power limit and memory total, the
	// power reference busy-wait compares with (and whether it is the
	// limit), and the highest SM clock and draw this GPU had reached.
	LimitAt, MemTotalAt, RefAt, RefIsLimit, MaxClockAt, MaxPowerAt Steps

	// Seen is when each metric was first seen (a column; -1 never), for
	// views: the Engine's frame only.
	Seen [Metrics]int
}

// Steps is a value known at each column that changes seldom (a limit, a
// reference): the columns where it changed, and its values from there.
type Steps struct {
	at []int32
	v  []float32
}

// Set makes v the value from column i on.
func (s *Steps) Set(i int, v float32) {
	n := len(s.at)
	switch {
	case n > 0 && (s.v[n-1] == v || (v != v && s.v[n-1] != s.v[n-1])):
		return // no change
	case n > 0 && int(s.at[n-1]) == i:
		s.v[n-1] = v
		return
	}
	s.at, s.v = append(s.at, int32(i)), append(s.v, v)
}

// Get is the value at column i; NaN before the first.
func (s *Steps) Get(i int) float64 {
	k := sort.Search(len(s.at), func(k int) bool { return int(s.at[k]) > i })
	if k == 0 {
		return math.NaN()
	}
	return float64(s.v[k-1])
}

// The metrics of a GPU, for GPU.Seen.
const (
	MetricUtil = iota
	MetricSM
	MetricPower
	MetricMem
	MetricTemp
	MetricClock
	MetricBus
	MetricThrottle
	Metrics
)

// Paged is a series of columns, as a budget sees it.
type Paged interface {
	Release(before int) int
	Bytes() int
}

// AllSeries is every series of the GPU's columns.
func (g *GPU) AllSeries() []Paged {
	return []Paged{&g.Util, &g.SM, &g.Power, &g.Mem, &g.Temp, &g.Clock, &g.Bus, &g.Throttle, &g.State, &g.Work}
}

// Series returns the GPU's columns of metric m, MetricUtil to MetricBus.
func (g *GPU) Series(m int) *Floats {
	return [...]*Floats{&g.Util, &g.SM, &g.Power, &g.Mem, &g.Temp, &g.Clock, &g.Bus}[m]
}

// judgeable says whether a GPU's columns can say what it did: utilisation,
// SM activity, or (an imported log without either) its clock and power.
func (g *GPU) judgeable() bool {
	return g.Util.Has() || g.SM.Has() || (g.Clock.Has() && g.Power.Has())
}

// Classify sets the state and work of column i; see State and
// Options for the thresholds. Where SM activity is known it decides
// idle and busy (a kernel on a few SMs reads 30 % utilisation and does
// next to nothing), except that a GPU whose utilisation says a kernel runs
// most of the time is working, however few SMs it keeps busy (tiny
// kernels, launch-bound): low, never idle. Utilisation alone decides
// otherwise, and without either, the clock and power do (see
// clockState).
func (g *GPU) Classify(i int, o Options, clockIdle, powerIdle float64) {
	u, m := At(&g.Util, i), At(&g.SM, i)
	work := m
	if math.IsNaN(m) {
		work = u
	}
	st := Low
	switch {
	case math.IsNaN(work):
		st, work = g.clockState(i, clockIdle, powerIdle), math.NaN()
	case u >= o.WaitUtil && Spinning(m, At(&g.Power, i), g.RefAt.Get(i), o):
		st, work = Waiting, 0
	case !math.IsNaN(m): // SM activity beats utilisation
		switch {
		case m >= o.BusyWork:
			st = Busy
		case m < o.IdleSM && !(u >= o.LaunchUtil):
			st = Idle
		}
	case u < o.IdleUtil:
		st = Idle
	case u >= o.BusyWork:
		st = Busy
	}
	g.State.Set(i, st)
	g.Work.Set(i, float32(work))
}

// clockState judges a column from the SM clock and power alone, for logs
// without utilisation: at the clock's idle floor and an idle draw the GPU
// is idle; above both it is working, how hard unknown (low, with no work
// figure). clockIdle and powerIdle are the levels at or below which each
// counts as idle; NaN where they cannot be told yet.
func (g *GPU) clockState(i int, clockIdle, powerIdle float64) State {
	c, p := At(&g.Clock, i), At(&g.Power, i)
	if math.IsNaN(c) || math.IsNaN(p) || math.IsNaN(clockIdle) || math.IsNaN(powerIdle) {
		return Unknown
	}
	if c <= clockIdle && p <= powerIdle {
		return Idle
	}
	return Low
}

// Spinning says whether a GPU whose utilisation is at WaitUtil or more
// did little, by its figures (NaN where unknown): SM activity below
// WaitSM, or without it, power at most WaitPower of ref (its reference);
// without either it cannot tell, and says no. Classify judges a column by
// it, and the phases a window, so both call the same GPUs spinning.
func Spinning(sm, power, ref float64, o Options) bool {
	if !math.IsNaN(sm) {
		return sm < o.WaitSM
	}
	return power > 0 && ref > 0 && power <= o.WaitPower*ref
}

// Working says whether a column has the GPU doing real work.
func (g *GPU) Working(i int) bool { st := g.State.At(i); return st == Low || st == Busy }

// ShareIn is the share of a window's known columns (state known) where
// cond holds; false when under half the window is known.
func (g *GPU) ShareIn(w Span, cond func(i int) bool) (float64, bool) {
	known, yes := 0, 0
	for i := w.Lo; i < w.Hi; i++ {
		if g.State.At(i) == Unknown {
			continue
		}
		known++
		if cond(i) {
			yes++
		}
	}
	if known == 0 || 2*known < w.Len() {
		return 0, false
	}
	return float64(yes) / float64(known), true
}

// Into is a moment as the hints say it: how far into the session.
func (f *Frame) Into(t time.Time) string {
	return units.Duration(t.Sub(f.From).Truncate(time.Second)) + " in"
}

// Pause is a long pause in sampling, as the frame leaves it out: column
// Col starts at Resume, and the columns before it end PauseCols columns
// of no sample after the last sample before the pause.
type Pause struct {
	Col    int
	Resume time.Time
}

// PauseCols is how many columns of no sample the frame keeps of a long
// pause before it skips to where sampling resumed: the columns that hold
// the last sample's values (two intervals, as a late sample's gap is
// held), then every window a rule judges and the gap it merges stretches
// over, so that no stretch, window or merge reaches across a pause, as
// none reaches across the same pause laid out in full.
func PauseCols(o Options, step, interval time.Duration) int {
	longest := time.Duration(max(1, o.IdleWindows, o.SustainedWindows))*o.Window + o.MergeGap + o.Window
	return int((2*interval+step-1)/step) + int((longest+step-1)/step) + 1
}

// Time is the start of column c: after the last pause that starts at or
// before it (k), if any, where sampling resumed.
func (f *Frame) Time(c int) time.Time {
	if k := sort.Search(len(f.Pauses), func(k int) bool { return f.Pauses[k].Col > c }) - 1; k >= 0 {
		p := f.Pauses[k]
		return p.Resume.Add(time.Duration(c-p.Col) * f.Step)
	}
	return f.From.Add(time.Duration(c) * f.Step)
}

// Col is the column that holds t; a moment within a pause the frame
// skips is held by the first column after it.
func (f *Frame) Col(t time.Time) int {
	k := sort.Search(len(f.Pauses), func(k int) bool { return f.Pauses[k].Resume.After(t) })
	c := int(t.Sub(f.From) / f.Step)
	if k > 0 {
		p := f.Pauses[k-1]
		c = p.Col + int(t.Sub(p.Resume)/f.Step)
	}
	if k < len(f.Pauses) {
		c = min(c, f.Pauses[k].Col)
	}
	return c
}

// Dur is how long a span of columns lasts: what the rules weigh.
func (f *Frame) Dur(sp Span) time.Duration { return time.Duration(sp.Hi-sp.Lo) * f.Step }

// A column starts at a sample and lasts a Step, so the view's last column
// reaches a Step past its last sample, where the session ends (its header
// says first to last sample). What a hint says of its time is cut there,
// so that "for 26s", "so far 26s" and "last seen" never outrun the
// recording by a second; the rules still weigh whole columns (Dur).

// past is how far the view's last column reaches beyond its last sample.
func (f *Frame) past() time.Duration {
	if f.Last.IsZero() {
		return 0
	}
	return max(0, f.Time(f.N).Sub(f.Last))
}

// EndAt is where a stretch ending before column c ends within the session:
// c's start, or the last sample where c is the view's end.
func (f *Frame) EndAt(c int) time.Time {
	if c >= f.N {
		return f.Time(f.N).Add(-f.past())
	}
	return f.Time(c)
}

// StartAt is where a stretch from column c starts within the session:
// c's start, or the first sample where that is later (columns start on the
// clock's multiples of their width).
func (f *Frame) StartAt(c int) time.Time {
	if t := f.Time(c); t.After(f.First) {
		return t
	}
	return f.First
}

// Held is how long a span of columns lasted within the session: Dur, less
// what its first column starts before the first sample and the view's last
// reaches past its last.
func (f *Frame) Held(sp Span) time.Duration { return max(0, f.EndAt(sp.Hi).Sub(f.StartAt(sp.Lo))) }

// Cols is how long n columns last within the session, the first of them
// column first and the last column last (of a count of columns, "2m of 3m
// working"), as Held has it.
func (f *Frame) Cols(n, first, last int) time.Duration {
	if n <= 0 {
		return 0
	}
	d := time.Duration(n) * f.Step
	if first == 0 {
		d -= f.StartAt(0).Sub(f.Time(0))
	}
	if last >= f.N-1 {
		d -= f.past()
	}
	return max(0, d)
}

// LengthFactor lowers the confidence of a short hint: 0.7 for one Window,
// 1 from four Windows on.
func (f *Frame) LengthFactor(sp Span) float64 {
	return 0.6 + 0.4*min(1, float64(f.Dur(sp))/float64(4*f.Opts.Window))
}

// At is column i of xs as a float64, NaN if xs was never seen.
func At(xs *Floats, i int) float64 {
	if !xs.on {
		return math.NaN()
	}
	return float64(xs.At(i))
}

// View is the frame cut at n columns: every slice shortened to them, a
// metric first seen later nil, the limits and references as known at the
// last of them, and only the GPUs that can be judged by then. It shares
// the engine's memory, so it is cheap; it must not be written to.
func (f *Frame) View(n int) *Frame {
	v := &Frame{Opts: f.Opts, From: f.From, Step: f.Step, Interval: f.Interval, N: n, Kept: f.Kept, HeldFrom: f.HeldFrom}
	// The pauses within the view: one at its end is after it (its last
	// column ends where that pause's columns of no sample end).
	v.Pauses = f.Pauses[:sort.Search(len(f.Pauses), func(k int) bool { return f.Pauses[k].Col >= n })]
	if n == 0 {
		return v
	}
	for _, g := range f.GPUs {
		c := &GPU{Index: g.Index, Host: g.Host, State: g.State.Cut(n), Work: g.Work.Cut(n),
			LimitAt: g.LimitAt, MemTotalAt: g.MemTotalAt, RefAt: g.RefAt, RefIsLimit: g.RefIsLimit,
			MaxClockAt: g.MaxClockAt, MaxPowerAt: g.MaxPowerAt}
		for m := range MetricThrottle {
			if g.Seen[m] >= 0 && g.Seen[m] < n {
				*c.Series(m) = g.Series(m).Cut(n)
			}
		}
		if g.Seen[MetricThrottle] >= 0 && g.Seen[MetricThrottle] < n {
			c.Throttle = g.Throttle.Cut(n)
		}
		c.Limit, c.MemTotal = g.LimitAt.Get(n-1), g.MemTotalAt.Get(n-1)
		if c.judgeable() {
			v.GPUs = append(v.GPUs, c)
		}
	}
	v.Hosts = make([]Host, len(f.Hosts))
	for k := range f.Hosts {
		v.Hosts[k] = f.Hosts[k].view(n)
	}
	return v
}
