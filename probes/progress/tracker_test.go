package progress

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/work"
)

// barLines are tqdm's redraws ten times a second of a bar that runs at
// rate1 for half the time and rate2 after, its stated rate smoothed as
// tqdm smooths it (an exponential average, smoothing 0.3).
func barLines(seconds int, rate1, rate2 float64) (ats []time.Time, ls []string) {
	start := time.Unix(1_700_000_000, 0)
	n, ema := 0.0, math.NaN()
	for i := 1; i <= seconds*10; i++ {
		rate := rate1
		if i > seconds*5 {
			rate = rate2
		}
		n += rate / 10
		if math.IsNaN(ema) {
			ema = rate
		}
		ema = 0.3*rate + 0.7*ema
		ats = append(ats, start.Add(time.Duration(i)*100*time.Millisecond))
		ls = append(ls, fmt.Sprintf("%3.0f%%|████ | %d/100000 [00:%02d<00:00, %.2fit/s]", n/1000, int(n), i/10, ema))
	}
	return ats, ls
}

func TestTrackerKeepsTheRateChange(t *testing.T) {
	ats, ls := barLines(60, 50, 25)
	p, tr := New(nil), NewTracker()
	var kept []timeline.Progress
	for i, l := range ls {
		r, ok := p.Parse([]byte(l))
		if !ok {
			t.Fatalf("not read: %q", l)
		}
		kept = append(kept, tr.Add(ats[i], r, "job")...)
	}
	kept = append(kept, tr.Flush()...)
	if len(kept) > 12 {
		t.Errorf("kept %d points of 60 s at two steady rates, want at most 12: %+v", len(kept), kept)
	}
	start, mid, end := ats[0], ats[0].Add(30*time.Second), ats[len(ats)-1]
	// The change is kept within a second of where it happened.
	near := false
	for _, k := range kept {
		if d := k.At.Sub(mid); d > -time.Second && d < time.Second {
			near = true
		}
	}
	if !near {
		t.Errorf("no point within 1 s of the change at %v: %+v", mid, kept)
	}
	r1, _ := work.Rate(kept, "it", start, mid.Add(-2*time.Second))
	r2, _ := work.Rate(kept, "it", mid.Add(2*time.Second), end)
	if math.Abs(r1-50) > 50*0.02 || math.Abs(r2-25) > 25*0.02 {
		t.Errorf("rates %v and %v from the points kept, want 50 and 25", r1, r2)
	}
}

func TestTrackerKeepsTheStall(t *testing.T) {
	tr := NewTracker()
	at := time.Unix(1_700_000_000, 0)
	var kept []timeline.Progress
	for i := 0; i <= 50; i++ { // 5 s of steps
		kept = append(kept, tr.Add(at.Add(time.Duration(i)*100*time.Millisecond), Reading{Stream: 1, Count: float64(i),
			Total: NaN, Rate: NaN, Unit: "step"}, "job")...)
	}
	stallAt := at.Add(5 * time.Second)
	if got := tr.Idle(stallAt.Add(time.Second)); got != nil {
		t.Errorf("kept %+v a second into the stall, want nothing yet", got)
	}
	got := tr.Idle(stallAt.Add(stallAfter))
	if len(got) != 1 || !got[0].At.Equal(stallAt) || got[0].Done != 50 {
		t.Errorf("the stall kept %+v, want the last reading (50 at %v)", got, stallAt)
	}
	if again := tr.Idle(stallAt.Add(time.Minute)); again != nil {
		t.Errorf("kept %+v again", again)
	}
}

func TestTrackerFollowsTheBusiestBar(t *testing.T) {
	tr := NewTracker()
	at := time.Unix(1_700_000_000, 0)
	var kept []timeline.Progress
	add := func(stream uint64, count float64, unit string) {
		at = at.Add(100 * time.Millisecond)
		kept = append(kept, tr.Add(at, Reading{Stream: stream, Count: count, Total: NaN, Rate: NaN, Unit: unit}, "job")...)
	}
	add(7, 1, "it") // a download's bar first
	for i := 0; i < 100; i++ {
		add(8, float64(i), "step")
		if i%10 == 0 {
			add(7, 2, "it")
		}
	}
	kept = append(kept, tr.Flush()...)
	last := kept[len(kept)-1]
	if last.Unit != "step" || last.Done != 99 {
		t.Errorf("last point %+v, want 99 steps", last)
	}
}

// A 2 s checkpoint between two epochs' bars, too short to count as a
// stall, tqdm stating the rate rightly (so it does not seem to change):
// the last reading before it and the first after it are kept, so the
// second epoch's work is not spread back over the checkpoint.
func TestTrackerKeepsThePausesEdges(t *testing.T) {
	tr := NewTracker()
	at := time.Unix(1_700_000_000, 0)
	var kept []timeline.Progress
	add := func(count float64) {
		kept = append(kept, tr.Add(at, Reading{Stream: 1, Count: count, Total: 200, Rate: 50, Unit: "it"}, "job")...)
	}
	for n := 0; n <= 200; n += 5 { // 50 it/s, redrawn ten times a second
		add(float64(n))
		at = at.Add(100 * time.Millisecond)
	}
	end := at.Add(-100 * time.Millisecond)
	at = at.Add(2 * time.Second)
	resume := at
	for n := 0; n <= 200; n += 5 {
		add(float64(n))
		at = at.Add(100 * time.Millisecond)
	}
	kept = append(kept, tr.Flush()...)
	var sawEnd, sawResume bool
	for _, k := range kept {
		sawEnd = sawEnd || k.At.Equal(end) && k.Done == 200
		sawResume = sawResume || k.At.Equal(resume) && k.Done == 200
	}
	if !sawEnd || !sawResume {
		t.Errorf("kept %+v, want 200 it at %v and at %v", kept, end, resume)
	}
	if r, _ := work.Rate(kept, "it", end.Add(100*time.Millisecond), resume.Add(-100*time.Millisecond)); r != 0 {
		t.Errorf("rate %v it/s over the checkpoint, want 0", r)
	}
}
