package ui

import (
	"slices"

	"github.com/gputop-dev/gputop/timeline"
)

// MIG instances are GPUs of the session numbered after the physical ones;
// the GPU list shows each under the GPU it is a slice of, labelled by its
// profile ("└1g.10gb"). The list works by position in info.GPUs, and finds
// a GPU by its Index, so the order here is the screen's alone.

// migUnderParents is info with each MIG instance moved right after its
// parent GPU, instances in index order. The GPUs slice is copied: the
// caller's is left as it was.
func migUnderParents(info timeline.SourceInfo) timeline.SourceInfo {
	if !slices.ContainsFunc(info.GPUs, timeline.GPUInfo.IsMIGInstance) {
		return info
	}
	gpus := slices.Clone(info.GPUs)
	slices.SortStableFunc(gpus, func(a, b timeline.GPUInfo) int {
		ka, kb := migSortKey(a), migSortKey(b)
		return slices.Compare(ka[:], kb[:])
	})
	info.GPUs = gpus
	return info
}

// migSortKey orders a GPU by its parent's index (its own for a physical
// GPU), then physical before instances, then by index.
func migSortKey(g timeline.GPUInfo) [3]int {
	if g.IsMIGInstance() {
		return [3]int{g.MIGParent, 1, g.Index}
	}
	return [3]int{g.Index, 0, g.Index}
}
