package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
)

func TestRateLevelsFindTheDrop(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	// 5 s of start-up without progress, 2 s of warm-up at 10 it/s, 50 it/s
	// to 30 s, then 25 it/s to 60 s: points as the Tracker keeps them.
	ps := []timeline.Progress{
		{At: at(5), Done: 0}, {At: at(7), Done: 20}, {At: at(17), Done: 520}, {At: at(27), Done: 1020},
		{At: at(30.1), Done: 1175}, {At: at(40), Done: 1422.5}, {At: at(50), Done: 1672.5}, {At: at(60), Done: 1922.5},
	}
	for i := range ps {
		ps[i].Unit, ps[i].Rate = "it", math.NaN()
	}
	levels := frame.RateLevels(ps, "it", t0, at(60))
	if len(levels) != 2 {
		t.Fatalf("levels %+v, want two", levels)
	}
	if d := levels[1].Start.Sub(at(30)); d < -2*time.Second || d > 2*time.Second {
		t.Errorf("the drop at %v, want at 30 s", levels[1].Start.Sub(t0))
	}
	if math.Abs(levels[1].Rate-25) > 1.25 || math.Abs(levels[0].Rate-50) > 10 {
		t.Errorf("rates %v and %v, want about 50 and 25", levels[0].Rate, levels[1].Rate)
	}
	if w := frame.WarmUp(levels, t0); w != 5*time.Second {
		t.Errorf("warm-up %v, want 5s", w)
	}
}
