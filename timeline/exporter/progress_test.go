package exporter

import (
	"math"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/prometheus/client_golang/prometheus"
)

// gputop_job_rate is the rate between the last two points that count the
// job's work, labelled with its unit; gputop_job_progress the work done.
func TestJobRateFromTheProgressPoints(t *testing.T) {
	s0, s1, s2 := fixedSample(0, 1000), fixedSample(1, 1500), fixedSample(2, 2000)
	s1.Progress = []timeline.Progress{{At: t0.Add(500 * time.Millisecond), Done: 100, Rate: 48, Unit: "it", Origin: "job"}}
	s2.Progress = []timeline.Progress{{At: t0.Add(1500 * time.Millisecond), Done: 150, Rate: 49, Unit: "it", Origin: "job"}}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(observed(s0, s1, s2))
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range fams {
		if n := f.GetName(); n == "gputop_job_rate" || n == "gputop_job_progress" {
			m := f.GetMetric()[0]
			if unit := m.GetLabel()[0].GetValue(); unit != "it" {
				t.Errorf("%s unit %q, want it", n, unit)
			}
			got[n] = m.GetGauge().GetValue()
		}
	}
	if math.Abs(got["gputop_job_rate"]-50) > 1e-9 || got["gputop_job_progress"] != 150 {
		t.Errorf("exported %v, want a rate of 50 it/s and 150 it done", got)
	}
}
