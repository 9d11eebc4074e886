package frame

import (
	"github.com/gputop-dev/gputop/timeline"
)

// Rule is one rule: find looks for it over the frame and returns one
// candidate per GPU (or the host) with the stretches where it holds;
// describe turns a group of candidates that hold together into the hint's
// severity, evidence, suggestion and confidence (false drops the group).
// A candidate yields to the rules in yieldsTo: it is dropped where one of
// them holds on the same GPU for most of its time, because that rule names
// the cause (input-bound explains a low utilisation; gpu-imbalance explains
// seven idle GPUs).
type Rule struct {
	ID       string
	Find     func(f *Frame) []Cand
	Describe func(f *Frame, g *Group) (timeline.Hint, bool)
	YieldsTo []string
}
