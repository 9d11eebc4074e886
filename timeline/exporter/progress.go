package exporter

import (
	"math"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/prometheus/client_golang/prometheus"
)

var (
	jobRateDesc = prometheus.NewDesc("gputop_job_rate", "The job's own rate, in its unit of work a second, as its output or gputop mark stated its progress.",
		[]string{"unit"}, nil)
	jobDoneDesc = prometheus.NewDesc("gputop_job_progress", "The work the job has done, in its unit, counted on across the bars it restarts.",
		[]string{"unit"}, nil)
)

// jobProgress follows the job's progress readings for gputop_job_rate: the
// rate between the last two readings that count the work done (the
// recording's points are a few seconds apart), else the rate the job
// stated last.
type jobProgress struct {
	last, prev timeline.Progress
	have       int // readings with Done seen, up to 2
	stated     timeline.Progress
	hasStated  bool
}

func (j *jobProgress) observe(s *timeline.Sample) {
	for _, p := range s.Progress {
		if !math.IsNaN(p.Rate) {
			j.stated, j.hasStated = p, true
		}
		if math.IsNaN(p.Done) {
			continue
		}
		if j.have > 0 && p.Unit != j.last.Unit {
			j.have = 0 // another unit: its rate starts afresh
		}
		j.prev, j.last = j.last, p
		j.have = min(j.have+1, 2)
	}
}

// add adds the job's series to a snapshot, where there is a rate.
func (j *jobProgress) add(add func(*prometheus.Desc, prometheus.ValueType, float64, ...string)) {
	if j.have > 0 {
		add(jobDoneDesc, prometheus.GaugeValue, j.last.Done, j.last.Unit)
	}
	if j.have == 2 {
		if d := j.last.At.Sub(j.prev.At).Seconds(); d > 0 && j.last.Done >= j.prev.Done {
			add(jobRateDesc, prometheus.GaugeValue, (j.last.Done-j.prev.Done)/d, j.last.Unit)
			return
		}
	}
	if j.hasStated && (j.have == 0 || j.stated.Unit == j.last.Unit) {
		add(jobRateDesc, prometheus.GaugeValue, j.stated.Rate, j.stated.Unit)
	}
}
