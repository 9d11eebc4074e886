package analysis

import (
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
)

// The names other packages use from below the Engine, so that the screen,
// the report and gputop's commands ask the analysis alone.

// Options holds the thresholds of the hint rules (frame.Options).
type HintOptions = frame.Options

// DefaultOptions returns the documented defaults of the hint rules.
func DefaultHintOptions() HintOptions { return frame.DefaultOptions() }

// ProvisionalMin is the least a provisional reading rests on
// (frame.ProvisionalMin).
const ProvisionalMin = frame.ProvisionalMin

// RateLevels is the job's progress rate as a few levels (frame.RateLevels).
func RateLevels(ps []timeline.Progress, unit string, from, to time.Time) []frame.RateLevel {
	return frame.RateLevels(ps, unit, from, to)
}

// WarmUp is how long the job took to reach its working rate
// (frame.WarmUp).
func WarmUp(levels []frame.RateLevel, from time.Time) time.Duration {
	return frame.WarmUp(levels, from)
}

// GPUNamesOf names the GPUs of a session as hints, reports and the screen
// do: "GPU3" where it has one host, "node3 GPU2" where it has several.
func GPUNamesOf(info timeline.SourceInfo) units.GPUNames { return frame.GPUNamesOf(info) }

// Holder names who an owner is: "pod team-a/train-0", "Slurm job 4242"
// (frame.Holder).
func Holder(o timeline.Owner) string { return frame.Holder(o) }
