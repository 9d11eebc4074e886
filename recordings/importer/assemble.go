package importer

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// result turns what a parser read into samples and the source's description.
func (t *table) result(format Format, opts Options) (*Result, error) {
	if err := t.checkLines(); err != nil {
		return nil, err
	}
	insts := t.group()
	times, err := t.instantTimes(insts, opts)
	if err != nil {
		return nil, err
	}
	order := t.timeOrder(insts, times)
	res := &Result{Format: format, Samples: t.samples(insts, times, order)}
	res.Info = timeline.SourceInfo{
		Kind:     timeline.Imported,
		Origin:   string(format),
		GPUs:     t.gpuInfos(insts, order),
		Interval: interval(res.Samples, opts.Interval),
	}
	if opts.Origin != "" {
		res.Info.Origin = fmt.Sprintf("%s (%s)", opts.Origin, format)
	}
	if t.zoneless {
		t.note("timestamps have no time zone: read as UTC")
	}
	res.Info.Notes = t.notes
	return res, nil
}

// checkLines refuses a log most of whose data lines could not be read, and
// notes the lines skipped in one that is mostly good.
func (t *table) checkLines() error {
	switch {
	case t.goodLines == 0 && t.firstBad != nil:
		return fmt.Errorf("%w (no data line could be read)", t.firstBad)
	case t.goodLines == 0:
		return errors.New("the log has no data lines")
	case t.badLines > t.goodLines:
		return fmt.Errorf("%w (%d of %d data lines could not be read)", t.firstBad, t.badLines, t.badLines+t.goodLines)
	case t.badLines > 0:
		t.note("skipped %s; the first: %v", units.Count(t.badLines, "unreadable line"), t.firstBad)
	}
	return nil
}

// maxSpan bounds how long a log without timestamps can be made to last.
const maxSpan = 100 * 365 * 24 * time.Hour

// instantTimes gives each instant its time, in unix nanoseconds: its first
// row's time, or, for logs without timestamps, start + i × interval.
func (t *table) instantTimes(insts []instant, opts Options) ([]int64, error) {
	times := make([]int64, len(insts))
	if t.timed {
		for i, in := range insts {
			times[i] = t.rows[in.lo].at
		}
		if t.clock {
			return times, t.anchorClock(times, opts)
		}
		if !opts.Start.IsZero() {
			t.note("the log has its own timestamps: the start time given is not used")
		}
		return times, nil
	}
	step := cmp.Or(opts.Interval, time.Second)
	n := int64(len(insts))
	if n-1 > int64(maxSpan/step) {
		return nil, fmt.Errorf("%d samples %v apart last beyond %v", n, step, maxSpan)
	}
	span := time.Duration(n-1) * step
	var start time.Time
	switch {
	case !opts.Start.IsZero():
		start = opts.Start
		t.note("no timestamps: times start at %s as given, one sample every %v", start.UTC().Format(time.RFC3339), step)
	case !opts.ModTime.IsZero():
		start = opts.ModTime.Add(-span)
		t.note("no timestamps: times are estimated, taking the log to end at the file's modification time %s, one sample every %v",
			opts.ModTime.UTC().Format(time.RFC3339), step)
	default:
		return nil, errors.New("the log has no timestamps: give the time it started (--start)")
	}
	if start.Before(minTime) || !start.Add(span).Before(maxTime) {
		return nil, fmt.Errorf("start %s: the samples would fall outside %d-%d", start.UTC().Format(time.RFC3339), minTime.Year(), maxTime.Year()-1)
	}
	for i := range times {
		times[i] = start.Add(time.Duration(i) * step).UnixNano()
	}
	return times, nil
}

// anchorClock dates times of day (dmon -o T): the day is the one that puts
// the first sample nearest Start, or else the last nearest ModTime.
func (t *table) anchorClock(times []int64, opts Options) error {
	ref, at, what := opts.Start, times[0], "the start time given"
	if ref.IsZero() {
		ref, at, what = opts.ModTime, times[len(times)-1], "the file's modification time"
	}
	if ref.IsZero() {
		return errors.New("the log has times of day but no dates: give the time it started (--start)")
	}
	const day = int64(24 * time.Hour)
	ref = ref.UTC()
	base := time.Date(ref.Year(), ref.Month(), ref.Day(), 0, 0, 0, 0, time.UTC).UnixNano()
	switch d := base + at - ref.UnixNano(); {
	case d > day/2:
		base -= day
	case d < -day/2:
		base += day
	}
	last := base + times[len(times)-1]
	if base < minTime.UnixNano() || last >= maxTime.UnixNano() {
		return fmt.Errorf("dating the log by %s puts it outside %d-%d", what, minTime.Year(), maxTime.Year()-1)
	}
	for i := range times {
		times[i] += base
	}
	t.note("times of day without dates: the date is taken from %s", what)
	return nil
}

// timeOrder lists instants by time, dropping any at the same time as the one
// before, so that samples strictly increase. The notes name the first log
// line where either happened.
func (t *table) timeOrder(insts []instant, times []int64) []int {
	order := make([]int, len(times))
	backwards := -1
	for i := range order {
		order[i] = i
		if i > 0 && times[i] < times[i-1] && backwards < 0 {
			backwards = t.rows[insts[i].lo].line
		}
	}
	if backwards >= 0 {
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(times[a], times[b]) })
		t.note("the log's times go backwards at line %d: samples are put in time order", backwards)
	}
	kept := order[:1]
	firstDrop := -1
	for _, i := range order[1:] {
		if times[i] > times[kept[len(kept)-1]] {
			kept = append(kept, i)
		} else if firstDrop < 0 {
			firstDrop = t.rows[insts[i].lo].line
		}
	}
	if dropped := len(order) - len(kept); dropped > 0 {
		t.note("%s dropped for having the same time as the one before, the first at line %d", units.Count(dropped, "sample"), firstDrop)
	}
	return kept
}

// samples builds one Sample per instant, in the given order, with each GPU's
// rows in index order so that consecutive samples share a layout.
func (t *table) samples(insts []instant, times []int64, order []int) []timeline.Sample {
	devices := map[int]string{}
	metrics := make([]timeline.Metric, 0, len(t.vals))
	out := make([]timeline.Sample, 0, len(order))
	for _, i := range order {
		rows := t.rows[insts[i].lo:insts[i].hi]
		if !slices.IsSortedFunc(rows, byGPU) {
			slices.SortStableFunc(rows, byGPU)
		}
		start := len(metrics)
		for _, r := range rows {
			dev, ok := devices[r.gpu]
			if !ok {
				dev = timeline.GPUDevice(r.gpu)
				devices[r.gpu] = dev
			}
			for _, v := range t.vals[r.lo:r.hi] {
				metrics = append(metrics, timeline.Metric{Key: timeline.Key{Name: v.metric, Device: dev}, Kind: timeline.Gauge, Value: v.value})
			}
		}
		out = append(out, timeline.Sample{At: time.Unix(0, times[i]).UTC(), Metrics: metrics[start:len(metrics):len(metrics)]})
	}
	return out
}

func byGPU(a, b row) int { return cmp.Compare(a.gpu, b.gpu) }

// gpuInfos describes every GPU of the kept samples: name and uuid from the
// first row that gives them, memory total and power limit from the first
// reading that has them.
func (t *table) gpuInfos(insts []instant, order []int) []timeline.GPUInfo {
	byIndex := map[int]*timeline.GPUInfo{}
	for _, i := range order {
		for _, r := range t.rows[insts[i].lo:insts[i].hi] {
			g := byIndex[r.gpu]
			if g == nil {
				g = &timeline.GPUInfo{Index: r.gpu, MemTotal: math.NaN(), PowerLimit: math.NaN(), MIG: t.mig[r.gpu]}
				byIndex[r.gpu] = g
			}
			if r.ident >= 0 {
				id := t.idents[r.ident]
				if g.Name == "" && g.UUID == "" {
					g.Name, g.UUID = id.name, id.uuid
				} else if id.name != g.Name || id.uuid != g.UUID {
					// Rows numbered by burst position disagree with the
					// names they carry: say so rather than guess.
					t.note("gpu%d is named both %q and %q: check the GPU numbering",
						r.gpu, strings.TrimSpace(g.Name+" "+g.UUID), strings.TrimSpace(id.name+" "+id.uuid))
				}
			}
			for _, v := range t.vals[r.lo:r.hi] {
				switch v.metric {
				case timeline.GPUMemTotal:
					if math.IsNaN(g.MemTotal) {
						g.MemTotal = v.value
					}
				case timeline.GPUPowerLimit:
					if math.IsNaN(g.PowerLimit) {
						g.PowerLimit = v.value
					}
				case timeline.GPUSMActive, timeline.GPUSMOccupancy, timeline.GPUTensor, timeline.GPUDRAMBW:
					g.GPM = true
				}
			}
		}
	}
	out := make([]timeline.GPUInfo, 0, len(byIndex))
	for _, g := range byIndex {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b timeline.GPUInfo) int { return cmp.Compare(a.Index, b.Index) })
	return out
}

// interval is the median spacing of the samples; for a single sample, the
// interval the caller gave, if any.
func interval(samples []timeline.Sample, given time.Duration) time.Duration {
	if len(samples) < 2 {
		return given
	}
	gaps := make([]int64, len(samples)-1)
	for i := 1; i < len(samples); i++ {
		gaps[i-1] = int64(samples[i].At.Sub(samples[i-1].At))
	}
	return time.Duration(median(gaps))
}
