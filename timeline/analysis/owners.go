package analysis

import (
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// OwnerSpan is a stretch of time a GPU was allocated to the same owners
// (a pod, a Slurm job; several on a time-sliced GPU), as the samples said
// it: what the report sums by owner.
type OwnerSpan struct {
	GPU      int
	From, To time.Time
	Owners   []timeline.Owner
}

// OwnerSpans are the stretches each GPU was allocated, GPU by GPU in
// order of index, each up to the next change or the last sample added;
// nil in a session that never named an owner. The Engine keeps them as
// they changed (frame.OwnerTrack), within its bound: the oldest of a
// session whose owners changed without end may be gone.
func (e *Engine) OwnerSpans() []OwnerSpan {
	track := &e.kept.Owners
	var out []OwnerSpan
	for _, gpu := range track.GPUs() {
		var cur *OwnerSpan
		end := func(to time.Time) {
			if cur != nil && to.After(cur.From) {
				cur.To = to
				out = append(out, *cur)
			}
			cur = nil
		}
		for _, st := range track.Steps(gpu) {
			if cur != nil && slices.Equal(cur.Owners, st.Owners) {
				continue // its processes changed, not its owners
			}
			end(st.At)
			if st.Owners != nil {
				cur = &OwnerSpan{GPU: gpu, From: st.At, Owners: st.Owners}
			}
		}
		end(e.last)
	}
	return out
}
