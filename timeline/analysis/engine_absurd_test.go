package analysis

import (
	"fmt"
	"strings"

	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
	"math"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// TestAbsurdValuesNeverPanic feeds the Engine what hostile files and broken
// drivers give: every value a float64 can hold, where rules index tables by
// watts and columns by time. None may panic, and none may count as a
// reading (an absurd power is a gap, never a busy-wait reference).
func TestAbsurdValuesNeverPanic(t *testing.T) {
	absurd := []float64{1e19, -1e19, math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.MaxFloat64,
		math.SmallestNonzeroFloat64, -0.0, 4096, 1 << 62, math.NaN()}
	names := []string{timeline.GPUUtil, timeline.GPUSMActive, timeline.GPUPower, timeline.GPUPowerLimit,
		timeline.GPUMemUsed, timeline.GPUMemTotal, timeline.GPUTemp, timeline.GPUClockSM, timeline.GPUThrottle,
		timeline.GPUPCIeRx, timeline.GPUPCIeGen, timeline.GPUPCIeWidth, timeline.GPUXid, timeline.GPUNVLinkDown,
		timeline.HostCPU, timeline.CoreBusy, timeline.HostIOWait, timeline.HostMemUsed}
	for _, v := range absurd {
		e := htEngine(180, func(t *htTick) {
			t.h100(0, 100, 90, 500, 10*htGiB)
			for _, n := range names {
				dev := timeline.GPUDevice(1)
				switch n {
				case timeline.HostCPU, timeline.HostIOWait, timeline.HostMemUsed:
					dev = timeline.HostDevice
				case timeline.CoreBusy:
					dev = timeline.CoreDevice(0)
				}
				if t.sec%3 == 0 {
					t.put(n, dev, v)
				} else {
					t.put(n, dev, 100)
				}
			}
		})
		for _, h := range e.Hints(e.Last()) {
			if math.IsNaN(h.Confidence) || h.Confidence < 0 || h.Confidence > 1 {
				t.Errorf("value %v: hint %s confidence %v", v, h.ID, h.Confidence)
			}
		}
		e.Phases(e.First(), e.Last())
		if r, _ := timeline.RangeOf(timeline.GPUPower); e.nodes[0].maxPower > r.Max {
			t.Errorf("value %v: the node's highest draw is %v W", v, e.nodes[0].maxPower)
		}
	}
}

// TestSampleFarAfterTheLastIsLeftOut checks that a sample a century on (a
// corrupt timestamp) costs no century of columns: the Engine leaves it
// out, as the Store does.
func TestSampleFarAfterTheLastIsLeftOut(t *testing.T) {
	e := NewEngine(timeline.SourceInfo{Interval: time.Second})
	for _, at := range []time.Duration{0, time.Second, 100 * 365 * 24 * time.Hour} {
		s := timeline.Sample{At: htT0.Add(at)}.WithMetrics([]timeline.Metric{
			{Key: timeline.Key{Name: timeline.GPUUtil, Device: "gpu0"}, Value: 50}})
		e.Add(&s)
	}
	if e.Len() != 2 || e.f.N > 2 {
		t.Fatalf("%d samples in %d columns, want 2 in 2", e.Len(), e.f.N)
	}
}

// TestAbsurdIntervalsEnd checks that a session's stated interval, which a
// file or a stream may state as anything, cannot make the Engine loop or
// overflow: 1 ns, a century, the largest Duration.
func TestAbsurdIntervalsEnd(t *testing.T) {
	for _, iv := range []time.Duration{1, time.Microsecond, 100 * 365 * 24 * time.Hour, math.MaxInt64, -time.Second} {
		e := NewEngine(timeline.SourceInfo{Interval: iv})
		for i := range 120 {
			s := timeline.Sample{At: htT0.Add(time.Duration(i) * time.Second)}.WithMetrics([]timeline.Metric{
				{Key: timeline.Key{Name: timeline.GPUUtil, Device: "gpu0"}, Value: float64(i % 100)}})
			e.Add(&s)
		}
		e.Hints(e.Last())
		e.Phases(e.First(), e.Last())
		SamplesUntil(timeline.SourceInfo{Interval: iv}, e.Last())
	}
}

// TestLongPausesCostNoColumns checks that a sparse session costs what its
// samples cost, not its span: 200 samples of 8 GPUs a day apart (less
// than the longest pause a session may hold) lay out a few hundred columns
// each, not 86,400, and the Engine still answers for every moment.
func TestLongPausesCostNoColumns(t *testing.T) {
	e := NewEngine(timeline.SourceInfo{Interval: time.Second})
	const samples = 200
	for i := range samples {
		tick := &htTick{sec: i}
		for g := range 8 {
			tick.h100(g, float64(i%100), float64(i%90), 300, 10*htGiB)
		}
		e.Add(new(timeline.Sample{At: htT0.Add(time.Duration(i) * 23 * time.Hour)}.WithMetrics(tick.m)))
	}
	if e.Len() != samples {
		t.Fatalf("%d samples taken, want %d", e.Len(), samples)
	}
	if most := samples * (frame.PauseCols(e.f.Opts, e.f.Step, e.f.Interval) + 1); e.f.N > most {
		t.Errorf("%d columns for %d samples, want at most %d", e.f.N, samples, most)
	}
	for _, at := range []time.Time{e.First(), e.First().Add(30 * time.Hour), e.Last()} {
		e.Hints(at)
	}
	e.Phases(e.First(), e.Last())
}

// TestPausesSkippedSayWhatPausesHeldSay checks that skipping a long pause
// changes nothing the Engine says: a session busy for ten minutes, paused
// for three hours, then idle for ten (and the same sampled a minute
// apart, paused for 20 hours), has the same hints at every moment and the same phases
// whether the pause's columns are laid out or not.
func TestPausesSkippedSayWhatPausesHeldSay(t *testing.T) {
	for _, c := range []struct {
		interval time.Duration
		pause    int // ticks
	}{{time.Second, 3 * 3600}, {time.Minute, 20 * 60}} {
		interval := c.interval
		feed := func(e *Engine) {
			for tick := 0; tick < 2*600+c.pause; tick++ {
				at := time.Duration(tick) * interval
				m := &htTick{sec: tick}
				switch {
				case at < 600*interval:
					m.h100(0, 100, 90, 650, 60*htGiB)
					m.h100(1, 0, 0, 70, 60*htGiB)
					m.cores(htCoreSet(8, 5, 100)...)
				case at < time.Duration(600+c.pause)*interval:
					continue // paused
				default:
					m.h100(0, 0, 0, 70, 60*htGiB)
					m.h100(1, 100, 95, 680, 70*htGiB)
					m.cores(htCoreSet(8, 5)...)
				}
				e.Add(new(timeline.Sample{At: htT0.Add(at)}.WithMetrics(m.m)))
			}
		}
		info := timeline.SourceInfo{Interval: interval}
		skipped, held := NewEngine(info), NewEngine(info)
		held.holdPauses = true
		feed(skipped)
		feed(held)
		if len(skipped.f.Pauses) != 1 || len(held.f.Pauses) != 0 || skipped.f.N > held.f.N-c.pause/2 {
			t.Fatalf("every %v: pauses %d and %d, columns %d and %d: the pause was not skipped", interval,
				len(skipped.f.Pauses), len(held.f.Pauses), skipped.f.N, held.f.N)
		}
		for _, at := range []int{300, 600, 610, 1000, c.pause + 900, c.pause + 1200} {
			moment := htT0.Add(time.Duration(at) * interval)
			if a, b := hintText(skipped.Hints(moment)), hintText(held.Hints(moment)); a != b {
				t.Errorf("every %v, at %v, skipped:\n%s\nheld:\n%s", interval, moment, a, b)
			}
		}
		if a, b := phaseText(skipped.Phases(skipped.First(), skipped.Last())), phaseText(held.Phases(held.First(), held.Last())); a != b {
			t.Errorf("every %v, phases, skipped:\n%s\nheld:\n%s", interval, a, b)
		}
		if len(skipped.Hints(skipped.Last())) == 0 {
			t.Errorf("every %v: no hint at the end: the case proves nothing", interval)
		}
	}
}

func hintText(hs []timeline.Hint) string {
	var b strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&b, "%s %v %s-%s %.3f %v %v %s\n", h.ID, h.GPUs, h.Start.Format(time.TimeOnly), h.End.Format(time.TimeOnly),
			h.Confidence, h.Provisional, h.Ongoing, h.Evidence)
		for _, ep := range h.Episodes {
			fmt.Fprintf(&b, "  %v %s-%s %s\n", ep.GPUs, ep.Start.Format(time.TimeOnly), ep.End.Format(time.TimeOnly), ep.Evidence)
		}
	}
	return b.String()
}

func phaseText(ps []timeline.Phase) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "%+v\n", p)
	}
	return b.String()
}

// TestBudgetBoundsTheColumns checks SetBudget: a six-hour session of 8
// GPUs kept within a budget of 384 KiB holds about that, not six hours of
// columns, and says when what it holds begins; and the GPUs, idle from an
// hour in, get the hint an Engine that keeps everything gives, with the
// same start, numbers and confidence, though its first four hours were
// let go of.
func TestBudgetBoundsTheColumns(t *testing.T) {
	const secs = 6 * 3600
	const budget = 384 << 10
	budgeted, whole := feedBudgeted(secs, budget, func(t *htTick) {
		// Power that packs neither as one value, nor as a dictionary, nor
		// as decimals (frame.Col): a page of it costs what it did.
		if t.sec < 3600 {
			htEvery8(func(i int) { t.h100(i, float64(90+t.sec%7), 80, 600+float64(t.sec%509)*math.Pi/10, 60*htGiB) })
		} else {
			htEvery8(func(i int) { t.h100(i, 0, 0, 70+float64(t.sec%503)*math.Pi/100, 60*htGiB) })
		}
	})
	held := func(e *Engine) int {
		n := 0
		for _, g := range e.f.GPUs {
			for _, s := range g.AllSeries() {
				n += s.Bytes()
			}
		}
		return n
	}
	if h, all := held(budgeted), held(whole); h > budget || h > all/3 {
		t.Errorf("the budgeted Engine holds %d bytes, the whole one %d: want at most %d", h, all, budget)
	}
	if since := budgeted.HeldSince(); since.IsZero() || !since.After(htT0.Add(4*time.Hour)) || since.After(htT0.Add(secs*time.Second-time.Hour)) {
		t.Errorf("held since %v, want between 4 h and 5 h in", since)
	}
	if v, all := budgeted.kept.VerdictBytes(), whole.kept.VerdictBytes(); v > all/2 {
		t.Errorf("the budgeted Engine keeps %d bytes of verdicts, the whole one %d: the ones of columns let go of stayed", v, all)
	}
	last := htT0.Add((secs - 1) * time.Second)
	a, b := budgeted.Hints(last), whole.Hints(last)
	if len(a) == 0 || !a[0].Start.Equal(htT0.Add(time.Hour)) || hintText(a) != hintText(b) {
		t.Errorf("hints at the end, budgeted:\n%s\nwhole:\n%s", hintText(a), hintText(b))
	}
}

// TestBudgetKeepsAPeriodicStallThatEnded checks SetBudget on a hint that
// ended long ago: 8 GPUs that stall for 20 s every 2 minutes for three
// hours, then work without a pause for five, kept within 384 KiB. The
// stalls' columns are let go of hours before the end, and the
// periodic-stall hint is still there, the same as an Engine that keeps
// everything gives (it was lost with the columns).
func TestBudgetKeepsAPeriodicStallThatEnded(t *testing.T) {
	const secs = 8 * 3600
	budgeted, whole := feedBudgeted(secs, 384<<10, func(t *htTick) {
		if t.sec < 3*3600 && t.sec%120 >= 100 {
			htEvery8(func(i int) { t.h100(i, 0, 0, 80+float64(t.sec%503)*math.Pi/100, 60*htGiB) })
		} else {
			htEvery8(func(i int) { t.h100(i, 95, 80, 400+float64(t.sec%509)*math.Pi/10, 60*htGiB) })
		}
	})
	if since := budgeted.HeldSince(); !since.After(htT0.Add(4 * time.Hour)) {
		t.Fatalf("held since %v: the stalls' columns were not let go of", since)
	}
	last := htT0.Add((secs - 1) * time.Second)
	a, b := budgeted.Hints(last), whole.Hints(last)
	if len(htFind(a, timeline.HintPeriodicStall)) == 0 || hintText(a) != hintText(b) {
		t.Errorf("hints at the end, budgeted:\n%s\nwhole:\n%s", hintText(a), hintText(b))
	}
}

// TestBudgetKeepsADegradedLinksCount checks SetBudget on link-degraded:
// GPU6 at x8 of x16 for six hours of work, kept within 384 KiB, is named
// with the figures an Engine that keeps everything gives ("6h of 6h
// working"), though its first four hours and more were let go of.
func TestBudgetKeepsADegradedLinksCount(t *testing.T) {
	budgeted, whole := feedBudgeted(6*3600, 384<<10, func(t *htTick) {
		htEvery8(func(i int) {
			t.h100(i, float64(90+t.sec%7), 80, 600+float64(t.sec%509)*math.Pi/10, 60*htGiB)
			t.link(i, 5, 16>>b2i(i == 6), 5, 16)
		})
	})
	if since := budgeted.HeldSince(); !since.After(htT0.Add(4 * time.Hour)) {
		t.Fatalf("held since %v: too little let go of", since)
	}
	last := htT0.Add((6*3600 - 1) * time.Second)
	a, b := htFind(budgeted.Hints(last), timeline.HintLinkDegraded), htFind(whole.Hints(last), timeline.HintLinkDegraded)
	if len(a) != 1 || hintText(a) != hintText(b) {
		t.Errorf("link-degraded within the budget:\n%s\nkeeping everything:\n%s", hintText(a), hintText(b))
	}
}

// feedBudgeted plays secs seconds of what script reads each second into
// an Engine within budget and one that keeps everything, asking both for
// hints every minute as the screen asks.
func feedBudgeted(secs, budget int, script func(t *htTick)) (budgeted, whole *Engine) {
	budgeted, whole = NewEngine(timeline.SourceInfo{Interval: time.Second}), NewEngine(timeline.SourceInfo{Interval: time.Second})
	budgeted.SetBudget(budget)
	for _, e := range []*Engine{budgeted, whole} {
		for sec := range secs {
			tick := &htTick{sec: sec}
			script(tick)
			at := htT0.Add(time.Duration(sec) * time.Second)
			e.Add(new(timeline.Sample{At: at}.WithMetrics(tick.m)))
			if sec%60 == 0 {
				e.Hints(at)
			}
		}
	}
	return budgeted, whole
}

// TestManyGPUsBrieflyCostLittle checks that a short session of many GPUs
// (a hostile file names thousands) holds its columns, not a page of each
// series: 4,096 GPUs for 30 s hold under 8 MB.
func TestManyGPUsBrieflyCostLittle(t *testing.T) {
	e := NewEngine(timeline.SourceInfo{Interval: time.Second})
	for sec := range 30 {
		tick := &htTick{sec: sec}
		for g := range 4096 {
			tick.h100(g, 50, 40, 300, htGiB)
		}
		e.Add(new(timeline.Sample{At: htT0.Add(time.Duration(sec) * time.Second)}.WithMetrics(tick.m)))
	}
	held := 0
	for _, g := range e.f.GPUs {
		for _, s := range g.AllSeries() {
			held += s.Bytes()
		}
	}
	if len(e.f.GPUs) != 4096 || held > 8<<20 {
		t.Errorf("%d GPUs hold %d bytes of columns, want 4096 in at most 8 MB", len(e.f.GPUs), held)
	}
}

// TestBudgetKeepsTheHostsHints checks SetBudget on a session of several
// hosts: 4 hosts of 8 GPUs for three hours, the third idle from 20
// minutes in, kept within 1 MiB, name the idle host as an Engine that
// keeps everything does, its start and numbers the same, though the
// columns of its first two hours and more were let go of.
func TestBudgetKeepsTheHostsHints(t *testing.T) {
	info, samples := timelinetest.Cluster(4, 8, 3*3600, func(h, g, sec int) timelinetest.GPUReading {
		if h == 2 && sec >= 1200 {
			return timelinetest.Idle
		}
		return timelinetest.Training
	})
	budgeted, whole := NewEngine(info), NewEngine(info)
	const budget = 512 << 10
	budgeted.SetBudget(budget)
	for i := range samples {
		for _, e := range []*Engine{budgeted, whole} {
			e.Add(&samples[i])
			if i%60 == 0 {
				e.Hints(samples[i].At)
			}
		}
	}
	if since := budgeted.HeldSince(); since.IsZero() || since.Before(samples[0].At.Add(2*time.Hour)) {
		t.Fatalf("held since %v: the budget let go of too little to prove anything", since)
	}
	a, b := budgeted.Hints(budgeted.Last()), whole.Hints(whole.Last())
	if hostIdle := htFind(a, timeline.HintHostIdle); len(hostIdle) == 0 || hintText(a) != hintText(b) {
		t.Errorf("hints at the end, budgeted:\n%s\nwhole:\n%s", hintText(a), hintText(b))
	}
}
