package accuracy

import (
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

var t0 = time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)

func hint(id string, sev timeline.Severity, from, to time.Duration, gpus ...int) timeline.Hint {
	return timeline.Hint{ID: id, Severity: sev, GPUs: gpus, Start: t0.Add(from), End: t0.Add(to)}
}

// A label is answered by an overlapping episode on a shared GPU; anything
// else raised is wrong unless the case allows it, and a healthy run's
// warning is a false warning.
func TestScore(t *testing.T) {
	c := Case{Name: "x", Labels: []Label{{ID: timeline.HintGPUImbalance, GPUs: []int{3}, From: time.Minute, To: 5 * time.Minute}},
		May: []string{timeline.HintGPUIdle}}
	a := Answer{First: t0, Last: t0.Add(10 * time.Minute), Hints: []timeline.Hint{
		hint(timeline.HintGPUImbalance, timeline.Warning, 4*time.Minute, 9*time.Minute, 2, 3),
		hint(timeline.HintGPUIdle, timeline.Info, 0, 9*time.Minute, 3),
		hint(timeline.HintPeriodicStall, timeline.Warning, 0, 9*time.Minute, 0),
	}, Live: []LiveAnswer{{At: t0.Add(4*time.Minute + 30*time.Second),
		Hints: []timeline.Hint{hint(timeline.HintGPUImbalance, timeline.Warning, 4*time.Minute, 4*time.Minute+30*time.Second, 3)}}}}
	o := Score(c, a)
	if !o.Matches[0].Hit || o.Matches[0].Delay != 3*time.Minute+30*time.Second {
		t.Errorf("match %+v, want hit 3m30s after the stretch began", o.Matches[0])
	}
	if o.OK() || len(o.Misses()) != 1 || !strings.Contains(o.Misses()[0], "false warning periodic-stall on GPU0") {
		t.Errorf("misses %q, want the periodic-stall alone", o.Misses())
	}
	f := Count([]Outcome{o}).Hints
	// gpu-idle, allowed, counts for nothing.
	if len(f) != 2 || f[0].ID != timeline.HintGPUImbalance || f[0].Precision() != 1 || f[1].Precision() != 0 {
		t.Errorf("figures %+v", f)
	}
	// On another GPU, or outside the stretch, nothing answers.
	a.Hints = []timeline.Hint{hint(timeline.HintGPUImbalance, timeline.Warning, 6*time.Minute, 9*time.Minute, 3),
		hint(timeline.HintGPUImbalance, timeline.Warning, 0, 9*time.Minute, 1)}
	if o := Score(c, a); o.Matches[0].Hit {
		t.Errorf("answered by %v", a.Hints)
	}
	healthy := Score(Case{Name: "h", Healthy: true, May: []string{timeline.HintPowerCapped}},
		Answer{First: t0, Last: t0.Add(2 * time.Hour), Hints: []timeline.Hint{hint(timeline.HintPowerCapped, timeline.Warning, 0, time.Hour)}})
	if healthy.OK() || healthy.Warnings() != 1 || Count([]Outcome{healthy}).WarningsPerHour() != 0.5 {
		t.Errorf("a healthy run's allowed warning is still a false warning: %+v", healthy)
	}
}

// What the document publishes reads back, and a case or a figure that
// drops is named.
func TestRegressions(t *testing.T) {
	good := Score(Case{Name: "synthetic/a/01", Part: Synthetic, Family: "a", Shape: "dmon, utf-8, 1 GPU, every 1s, 10m0s",
		Labels: []Label{{ID: timeline.HintGPUIdle, From: 0, To: time.Hour}}},
		Answer{First: t0, Last: t0.Add(time.Hour), Hints: []timeline.Hint{hint(timeline.HintGPUIdle, timeline.Info, time.Minute, time.Hour, 0)}})
	doc := Markdown([]Outcome{good})
	p := Parse(doc)
	if !p.Right["synthetic/a/01"] || p.Recall[timeline.HintGPUIdle] != 1 || p.Precision[timeline.HintGPUIdle] != 1 {
		t.Fatalf("parsed %+v from\n%s", p, doc)
	}
	if r := Regressions(p, []Outcome{good}); len(r) != 0 {
		t.Errorf("regressions of the same outcomes: %q", r)
	}
	bad := Score(good.Case, Answer{First: t0, Last: t0.Add(time.Hour)})
	r := Regressions(p, []Outcome{bad})
	if len(r) != 2 || !strings.Contains(r[0], "synthetic/a/01 was read right and is now wrong: missed gpu-idle") ||
		!strings.Contains(r[1], "gpu-idle: recall fell from 1.00 to 0.00") {
		t.Errorf("regressions %q", r)
	}
}
