package work

import (
	"math"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

func TestProgressCountsFromTheJobsStart(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	steps := func(origin string, counts ...float64) []timeline.Progress {
		var ps []timeline.Progress
		for i, c := range counts {
			ps = append(ps, timeline.Progress{At: at(float64(i)), Done: c, Rate: math.NaN(), Unit: "step", Origin: origin})
		}
		return ps
	}
	nan := math.NaN()
	for _, tt := range []struct {
		name           string
		ps             []timeline.Progress
		from, to       float64
		wantDone, rate float64
	}{
		// "step 5 ... step 50", one a second: fifty steps, five a second
		// between the readings.
		{"a job's first count is work done", steps("job", 5, 10, 15, 20, 25, 30, 35, 40, 45, 50), 0, 9, 50, 5},
		// tqdm's first bar seen at 2/200 (the session opened late): 200.
		{"a bar first seen part-way", steps("job", 2, 100, 200), 0, 2, 200, 99},
		{"the first reading outside the window", steps("job", 5, 10, 15), 1, 2, 5, 5},
		// A mark may count work from before the recording began.
		{"a mark's first count is not", steps("mark", 1200, 1210, 1220), 0, 2, 20, 10},
		{"a window of the first reading alone", steps("job", 5, 10), 0, 0, 5, nan},
	} {
		t.Run(tt.name, func(t *testing.T) {
			done := Done(tt.ps, "step", at(tt.from), at(tt.to))
			rate, _ := Rate(tt.ps, "step", at(tt.from), at(tt.to))
			if !sameRate(done, tt.wantDone) || !sameRate(rate, tt.rate) {
				t.Errorf("done %v at %v/s, want %v at %v/s", done, rate, tt.wantDone, tt.rate)
			}
		})
	}
}

func TestNoRateAfterTheLastReading(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	counted := []timeline.Progress{
		{At: at(0), Done: 0, Rate: 90, Unit: "it", Origin: "job"},
		{At: at(10), Done: 500, Rate: 90, Unit: "it", Origin: "job"},
	}
	stated := []timeline.Progress{
		{At: at(0), Done: math.NaN(), Rate: 40, Unit: "tok", Origin: "job"},
		{At: at(10), Done: math.NaN(), Rate: 60, Unit: "tok", Origin: "job"},
	}
	for _, tt := range []struct {
		name     string
		ps       []timeline.Progress
		unit     string
		from, to float64
		want     float64
	}{
		{"counted, the training", counted, "it", 0, 10, 50},
		{"counted, a checkpoint after the last line", counted, "it", 11, 20, math.NaN()},
		{"counted, before the first line", counted, "it", -5, -1, math.NaN()},
		{"stated, the training", stated, "tok", 0, 10, 40},
		{"stated, a window holding the last line", stated, "tok", 5, 20, 40},
		{"stated, a checkpoint after the last line", stated, "tok", 11, 20, math.NaN()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got, _ := Rate(tt.ps, tt.unit, at(tt.from), at(tt.to)); !sameRate(got, tt.want) {
				t.Errorf("rate %v, want %v", got, tt.want)
			}
		})
	}
}

// sameRate says whether a and b are equal to within a part in a million, or
// both NaN.
func sameRate(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b))
}
