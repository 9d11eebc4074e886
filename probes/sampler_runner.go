package probes

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// runner is the Sampler's bookkeeping for one probe. Only the goroutine in
// Sampler.Next touches it; a Collect goroutine reads just probe, and answers
// through the results channel.
type runner struct {
	probe  Probe
	name   string
	device string

	busy     bool      // a Collect is running (possibly from an earlier tick)
	since    time.Time // sample time of the tick that started the running call
	tick     uint64    // tick of the latest call started
	answered bool      // res holds this tick's answer
	res      result

	owners bool // an ownership probe: its answer is Sample.Owners, not processes

	lost    bool   // the device is gone: never called again
	lostErr string // why, repeated on every later tick so events merge

	// layout is the probe's last reading, whose keys and kinds stand in
	// (with NaN values) on ticks without an answer, keeping the sample's
	// layout stable.
	layout []timeline.Metric
}

// result is one finished Collect.
type result struct {
	runner  *runner
	tick    uint64
	reading Reading
	err     error
	took    time.Duration
}

func newRunner(p Probe) *runner {
	return &runner{probe: p, name: p.Name(), device: p.Device()}
}

// collect runs one Collect and posts its answer. Took is measured on the
// sampler's clock, so a FastClock run (simulated time) records the same
// bytes every time.
func (s *Sampler) collect(ctx context.Context, cancel context.CancelFunc, r *runner, tick uint64) {
	defer cancel()
	began := s.clock.Now()
	reading, err := collectSafely(ctx, r.probe)
	s.results <- result{runner: r, tick: tick, reading: reading, err: err, took: s.clock.Now().Sub(began)}
}

// collectSafely turns a panic in a probe into an error. A probe's bug (or a
// driver binding that panics on a missing function) then shows as a failed
// probe in the status line instead of killing the live view and the
// recording with it.
func collectSafely(ctx context.Context, p Probe) (reading Reading, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("probe panicked: %v", v)
		}
	}()
	return p.Collect(ctx)
}

// report appends the runner's metrics for this tick to ms and returns its
// status, and whether it answered this tick (so its Processes are fresh).
func (r *runner) report(ms []timeline.Metric, tick uint64, at time.Time, timeout, interval time.Duration) ([]timeline.Metric, timeline.ProbeStatus, bool) {
	st := timeline.ProbeStatus{Probe: r.name, Device: r.device}
	switch {
	case r.lost:
		st.State, st.Err = timeline.ProbeLost, r.lostErr
		return ms, st, false
	case !r.answered:
		st.State = timeline.ProbeLate
		if r.tick == tick {
			st.Err = "no answer within " + timeout.String()
		} else {
			st.Err = "still busy from " + clockTime(r.since, interval)
		}
		for _, m := range r.layout {
			ms = append(ms, timeline.Metric{Key: m.Key, Kind: m.Kind, Value: math.NaN()})
		}
		return ms, st, false
	}
	res := &r.res
	st.Took = res.took
	ms = append(ms, res.reading.Metrics...)
	r.layout = append(r.layout[:0], res.reading.Metrics...)
	switch {
	case res.reading.Lost:
		r.lost = true
		r.lostErr = "device lost"
		if res.err != nil {
			r.lostErr = res.err.Error()
		}
		st.State, st.Err = timeline.ProbeLost, r.lostErr
	case res.err != nil:
		st.State, st.Err = timeline.ProbeFailed, res.err.Error()
	default:
		st.State = timeline.ProbeOK
	}
	return ms, st, true
}

// clockTime formats a tick's time for a status line: seconds, or
// milliseconds when ticks come faster than once a second.
func clockTime(t time.Time, interval time.Duration) string {
	if interval%time.Second != 0 {
		return t.Format("15:04:05.000")
	}
	return t.Format("15:04:05")
}
