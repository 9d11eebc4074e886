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

// Log is an imported log: its description and its samples, which are
// kept compactly (the table's rows and values) and made one at a time as
// Each hands them to the writer, so that a million-line log never sits in
// memory as samples.
type Log struct {
	// Info describes the source: Kind timeline.Imported, Origin
	// "<file> (<format>)", the GPUs found, the median sampling interval and
	// notes on everything that was assumed or left out.
	Info timeline.SourceInfo
	// Format is the format the log was read as.
	Format Format
	// Samples is how many samples Each makes; First and Last their times.
	Samples     int
	First, Last time.Time

	t     *table
	insts []instant
	times []int64 // each instant's time, unix nanoseconds
	order []int   // the instants kept, in time order
}

// result turns what a parser read into a Log.
func (t *table) result(format Format, opts Options) (*Log, error) {
	if err := t.checkLines(); err != nil {
		return nil, err
	}
	insts := t.group()
	times, err := t.instantTimes(insts, opts)
	if err != nil {
		return nil, err
	}
	order := t.timeOrder(insts, times)
	ordered := make([]int64, len(order))
	for k, i := range order {
		ordered[k] = times[i]
	}
	keep := cutJumps(ordered, func(n string) { t.note("%s", n) })
	order, ordered = order[:keep], ordered[:keep]
	for _, i := range order {
		// Each GPU's rows in index order, so that consecutive samples
		// share a layout.
		if rows := t.rows[insts[i].lo:insts[i].hi]; !slices.IsSortedFunc(rows, byGPU) {
			slices.SortStableFunc(rows, byGPU)
		}
	}
	l := &Log{Format: format, Samples: len(order), t: t, insts: insts, times: times, order: order}
	l.First, l.Last = time.Unix(0, ordered[0]).UTC(), time.Unix(0, ordered[len(ordered)-1]).UTC()
	l.Info = timeline.SourceInfo{
		Kind:   timeline.Imported,
		Origin: string(format),
		GPUs:   t.gpuInfos(insts, order),
		// The median spacing of the samples (which strictly increase, so
		// it is not 0); for a single sample, the interval given, if any.
		Interval: cmp.Or(time.Duration(MedianGap(ordered)), opts.Interval),
	}
	if opts.Origin != "" {
		l.Info.Origin = fmt.Sprintf("%s (%s)", CleanLabel(opts.Origin), format)
	}
	if t.zoneless {
		t.note("timestamps have no time zone: read as UTC")
	}
	for _, n := range slices.Concat(t.outside.Notes(), t.frozenNotes(insts, order, times)) {
		t.note("%s", n)
	}
	l.Info.Notes = t.notes
	return l, nil
}

// Each makes the samples in time order, one per sampling instant with each
// GPU's readings of that instant, and gives each to write; the sample and
// its values are reused for the next one.
func (l *Log) Each(write func(*timeline.Sample) error) error {
	var s timeline.Sample
	var ms []timeline.Metric
	devices := map[int16]string{}
	for _, i := range l.order {
		ms = l.t.appendMetrics(ms[:0], l.insts[i], devices)
		s.At = time.Unix(0, l.times[i]).UTC()
		s.Fill(ms)
		if err := write(&s); err != nil {
			return err
		}
	}
	return nil
}

// appendMetrics appends the readings of an instant's rows.
func (t *table) appendMetrics(dst []timeline.Metric, in instant, devices map[int16]string) []timeline.Metric {
	for k := in.lo; k < in.hi; k++ {
		r := &t.rows[k]
		dev, ok := devices[r.gpu]
		if !ok {
			dev = timeline.GPUDevice(int(r.gpu))
			devices[r.gpu] = dev
		}
		names, vals := t.metrics(r)
		for j, name := range names {
			dst = append(dst, timeline.Metric{Key: timeline.Key{Name: name, Device: dev}, Kind: timeline.Gauge, Value: vals[j]})
		}
	}
	return dst
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
			backwards = int(t.rows[insts[i].lo].line)
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
			firstDrop = int(t.rows[insts[i].lo].line)
		}
	}
	if dropped := len(order) - len(kept); dropped > 0 {
		t.note("%s dropped for having the same time as the one before, the first at line %d", units.Count(dropped, "sample"), firstDrop)
	}
	return kept
}

func byGPU(a, b row) int { return cmp.Compare(a.gpu, b.gpu) }

// gpuInfos describes every GPU of the kept samples: name and uuid from the
// first row that gives them, memory total and power limit from the first
// reading that has them.
func (t *table) gpuInfos(insts []instant, order []int) []timeline.GPUInfo {
	byIndex := map[int]*timeline.GPUInfo{}
	for _, i := range order {
		for k := insts[i].lo; k < insts[i].hi; k++ {
			r := &t.rows[k]
			g := byIndex[int(r.gpu)]
			if g == nil {
				g = &timeline.GPUInfo{Index: int(r.gpu), MemTotal: math.NaN(), PowerLimit: math.NaN(), MIG: t.mig[int(r.gpu)]}
				byIndex[int(r.gpu)] = g
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
			names, vals := t.metrics(r)
			for j, name := range names {
				switch name {
				case timeline.GPUMemTotal:
					if math.IsNaN(g.MemTotal) {
						g.MemTotal = vals[j]
					}
				case timeline.GPUPowerLimit:
					if math.IsNaN(g.PowerLimit) {
						g.PowerLimit = vals[j]
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
