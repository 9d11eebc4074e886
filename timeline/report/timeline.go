package report

import (
	"math"
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// ReportTimeline is each GPU's series over the report's span, resampled to
// a fixed number of columns (the least, mean and greatest value each
// column covers, timeline.Store.Series): what the HTML and SVG forms draw,
// so that a day of samples costs as much to draw as a minute. Only the
// drawn forms ask for it (ReportOptions.TimelineColumns); it is not part of
// the JSON contract.
type ReportTimeline struct {
	// Columns is how many columns each series has, each covering an equal
	// share of [0, Report.Duration].
	Columns int
	// GPUs are in the report's order (grouped by host where there are
	// several), one for each of Report.GPUs.
	GPUs []TimelineGPU
}

// TimelineGPU is one GPU's drawn series: utilisation and SM activity in
// %, power in W, memory used in bytes. A series the GPU never reported is
// nil; a column without a value has NaN in all three of its figures.
type TimelineGPU struct {
	Index    int
	Util     []timeline.Agg
	SMActive []timeline.Agg
	Power    []timeline.Agg
	MemUsed  []timeline.Agg
}

// drawn reads every GPU's drawn series, Columns columns each, by NVML
// index.
func (b *repBuilder) drawn(columns int) map[int]TimelineGPU {
	// A store of one sample has no span: draw it as one instant.
	from, to := b.from, b.to
	if !to.After(from) {
		to = from.Add(time.Duration(b.step))
	}
	series := func(name, dev string) []timeline.Agg {
		key := timeline.Key{Name: name, Device: dev}
		if !b.s.Has(key) {
			return nil
		}
		out := make([]timeline.Agg, columns)
		b.s.Series(key, from, to, out)
		if slices.ContainsFunc(out, func(a timeline.Agg) bool { return !math.IsNaN(a.Mean) }) {
			return out
		}
		return nil
	}
	gpus := map[int]TimelineGPU{}
	for _, idx := range timeline.GPUIndexes(b.s, b.info) {
		dev := timeline.GPUDevice(idx)
		gpus[idx] = TimelineGPU{Index: idx, Util: series(timeline.GPUUtil, dev), SMActive: series(timeline.GPUSMActive, dev),
			Power: series(timeline.GPUPower, dev), MemUsed: series(timeline.GPUMemUsed, dev)}
	}
	return gpus
}

// timeline lays out every GPU's drawn series (drawn) in the report's GPU
// order (after hosts() has grouped them).
func (b *repBuilder) timeline(columns int, drawn map[int]TimelineGPU) {
	tl := &ReportTimeline{Columns: columns}
	for _, g := range b.r.GPUs {
		tl.GPUs = append(tl.GPUs, drawn[g.Index])
	}
	b.r.Timeline = tl
}
