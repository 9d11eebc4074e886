package ui

import (
	"slices"

	"github.com/gputop-dev/gputop/timeline"
)

// gpuSeries is what a summary reads of one GPU: its series' ids in the
// store, for the GPU of that index.
type gpuSeries struct {
	index           int
	util, sm, power timeline.SeriesID
}

// gpuSeriesCache keeps every GPU's gpuSeries by position in info.GPUs, so
// that the summaries, which read every GPU each frame, look each key up
// once: 64 hosts' 1,536 lookups by key a frame were a fifth of drawing
// them.
type gpuSeriesCache struct {
	byPos []gpuSeries
	// keys is how many series the store had when byPos was filled: a
	// series missing then may have come since.
	keys int
}

// at is the ids of the series of the GPU at pos in gpus. They are looked
// up again when the store has new series or another GPU is at pos.
func (c *gpuSeriesCache) at(s *timeline.Store, gpus []timeline.GPUInfo, pos int) gpuSeries {
	if n := len(s.Keys()); n != c.keys || len(c.byPos) != len(gpus) {
		c.keys = n
		c.byPos = slices.Grow(c.byPos[:0], len(gpus))[:len(gpus)]
		for i := range c.byPos {
			c.byPos[i].index = -1
		}
	}
	sr := &c.byPos[pos]
	if g := gpus[pos].Index; sr.index != g {
		dev := timeline.GPUDevice(g)
		id := func(name string) timeline.SeriesID {
			id, _ := s.ID(timeline.Key{Name: name, Device: dev})
			return id
		}
		*sr = gpuSeries{index: g, util: id(timeline.GPUUtil), sm: id(timeline.GPUSMActive), power: id(timeline.GPUPower)}
	}
	return *sr
}
