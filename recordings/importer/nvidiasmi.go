package importer

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// smiHeader is how to read the rows under one CSV header line.
type smiHeader struct {
	fields []string // the header's fields, to spot it repeated
	cols   []column
	stamp  int // timestamp column, or -1
	date   int // date and time columns, joined, when there is no timestamp
	clock  int
	index  int // GPU identity columns, or -1
	uuid   int
	name   int
	// Memory used is total - free when a log has those two and not used.
	free, total int
	throttle    int   // clocks_event_reasons.active, or -1
	reasons     []int // per-reason throttle columns
}

func (h *smiHeader) timed() bool { return h.stamp >= 0 || h.date >= 0 }
func (h *smiHeader) keyed() bool { return h.index >= 0 || h.uuid >= 0 }

// newSMIHeader plans the columns of one header line.
func newSMIHeader(fields []string) (*smiHeader, error) {
	h := &smiHeader{fields: slices.Clone(fields), cols: make([]column, len(fields)), uuid: -1, total: -1}
	metrics := 0
	for i, f := range fields {
		c := lookupSMIColumn(f)
		h.cols[i] = c
		switch c.kind {
		case colUUID:
			if h.uuid < 0 || c.rank < h.cols[h.uuid].rank {
				h.uuid = i
			}
		case colReason:
			h.reasons = append(h.reasons, i)
			metrics++
		case colThrottle, colMetric:
			metrics++
		}
	}
	h.stamp = firstOf(h.cols, colTimestamp)
	h.date = firstOf(h.cols, colDate)
	h.clock = firstOf(h.cols, colTime)
	h.index = firstOf(h.cols, colIndex)
	h.name = firstOf(h.cols, colName)
	h.free = firstOf(h.cols, colMemFree)
	h.throttle = firstOf(h.cols, colThrottle)
	byMetric := keepOnePerMetric(h.cols)
	// A lone "time" column is the timestamp; with a date, its time of day.
	if h.stamp < 0 && h.clock >= 0 && h.date < 0 {
		h.stamp, h.clock = h.clock, -1
	}
	if h.date >= 0 && h.clock < 0 {
		// A lone date column holds the date and time (GPU-Z's "Date").
		if h.stamp < 0 {
			h.stamp = h.date
		}
		h.date = -1
	}
	if j, ok := byMetric[timeline.GPUMemTotal]; ok {
		h.total = j
	}
	if _, used := byMetric[timeline.GPUMemUsed]; used {
		h.free = -1
	}
	if metrics == 0 {
		return nil, errors.New("no column gputop can import: expected --query-gpu names such as utilization.gpu, memory.used, power.draw")
	}
	return h, nil
}

// mayBeHeader says whether a CSV line could be a header: headers have no
// digits, and every data line has some (a time, an index, a value).
func mayBeHeader(line string) bool { return !strings.ContainsAny(line, "0123456789") }

// parseNvidiaSMI reads `nvidia-smi --query-gpu=... --format=csv` output.
func parseNvidiaSMI(lines *lineReader, columns string) (*table, error) {
	t := newTable()
	var h *smiHeader
	var fields []string
	gpuOfUUID := map[string]int{}
	run, changes, firstChange := 0, 0, -1
	for {
		text, n, err := lines.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		fields = splitCSV(text, fields)
		if h != nil && slices.Equal(fields, h.fields) {
			run++ // a repeated header: nvidia-smi restarted, appending to the file
			continue
		}
		if mayBeHeader(text) {
			next, err := newSMIHeader(fields)
			switch {
			case err != nil && h == nil:
				return nil, fmt.Errorf("line %d: %w", n, err)
			case err == nil && h != nil && (next.timed() != h.timed() || next.keyed() != h.keyed()):
				return nil, fmt.Errorf("line %d: a new header that changes the timestamp or GPU columns: import each part on its own", n)
			case err == nil:
				if h != nil {
					changes++
					if firstChange < 0 {
						firstChange = n
					}
				}
				h = next
				run++
				t.useHeader(h)
				continue
			}
		}
		if h == nil {
			if columns == "" {
				return nil, fmt.Errorf("line %d: no header line: give the --query-gpu column list (--columns)", n)
			}
			if h, err = newSMIHeader(splitCSV(columns, nil)); err != nil {
				return nil, fmt.Errorf("columns %q: %w", columns, err)
			}
			t.useHeader(h)
			t.note("no header line: columns taken as %s", columns)
		}
		if len(fields) != len(h.cols) {
			t.fail(n, fmt.Errorf("%d fields, header has %d", len(fields), len(h.cols)))
			continue
		}
		if err := h.parseRow(t, fields, n, run, gpuOfUUID); errors.Is(err, errTooLarge) {
			return nil, err
		} else if err != nil {
			t.fail(n, err)
		}
	}
	if h == nil {
		return nil, errors.New("the log is empty")
	}
	if changes > 0 {
		t.note("the columns change %s, first at line %d", units.Count(changes, "time"), firstChange)
	}
	return t, nil
}

// useHeader sets the table's shape from a header and notes what it leaves out.
func (t *table) useHeader(h *smiHeader) {
	t.timed, t.keyed = h.timed(), h.keyed()
	var ignored []string
	for _, c := range h.cols {
		if (c.kind == colIgnored || c.kind == colUnsupported) && c.name != "" {
			ignored = append(ignored, c.name) // "" is the column after GPU-Z's trailing comma
		}
	}
	if len(ignored) > 0 {
		t.note("columns not imported (gputop has no metric for them): %s", strings.Join(ignored, ", "))
	}
	if h.free >= 0 && h.total >= 0 {
		t.note("memory used is memory.total - memory.free (the log has no memory.used)")
	}
}

// parseRow reads one data line into the table.
func (h *smiHeader) parseRow(t *table, f []string, line, run int, gpuOfUUID map[string]int) error {
	r := row{line: int32(line), run: int32(run), gpu: -1, ident: -1}
	if err := h.parseTime(t, f, &r); err != nil {
		return err
	}
	var name, uuid string
	if h.name >= 0 && !isNA(f[h.name]) {
		name = f[h.name]
	}
	if h.uuid >= 0 && !isNA(f[h.uuid]) {
		uuid = f[h.uuid]
	}
	switch {
	case h.index >= 0:
		i, err := parseIndex(f[h.index])
		if err != nil {
			return err
		}
		r.gpu = int16(i)
	case h.uuid >= 0:
		if uuid == "" {
			return fmt.Errorf("%s: no value", h.cols[h.uuid].name)
		}
		i, ok := gpuOfUUID[uuid]
		if !ok {
			if len(gpuOfUUID) > MaxGPUIndex {
				return fmt.Errorf("more than %d GPUs", MaxGPUIndex+1)
			}
			i = len(gpuOfUUID)
			gpuOfUUID[strings.Clone(uuid)] = i
		}
		r.gpu = int16(i)
	}
	if h.uuid >= 0 && h.cols[h.uuid].rank > 0 {
		uuid = "" // a bus id or serial number names the GPU but is no uuid
	}
	r.ident = t.ident(name, uuid)
	return t.add(r, func() error { return h.parseValues(t, f) })
}

func (h *smiHeader) parseTime(t *table, f []string, r *row) error {
	var s string
	switch {
	case h.stamp >= 0:
		s = f[h.stamp]
	case h.date >= 0:
		s = f[h.date] + " " + f[h.clock]
	default:
		return nil
	}
	at, zoned, err := parseTime(s)
	if err != nil {
		return err
	}
	r.at = at.UnixNano()
	t.zoneless = t.zoneless || !zoned
	return nil
}

// parseValues appends one row's metric readings, in column order.
func (h *smiHeader) parseValues(t *table, f []string) error {
	if err := putMetrics(t, h.cols, f); err != nil {
		return err
	}
	if h.free >= 0 && h.total >= 0 {
		free, err := parseValue(f[h.free], unitMiB, h.cols[h.free].scale)
		if err != nil {
			return fmt.Errorf("%s: %w", h.cols[h.free].name, err)
		}
		total, err := parseValue(f[h.total], unitMiB, h.cols[h.total].scale)
		if err != nil {
			return fmt.Errorf("%s: %w", h.cols[h.total].name, err)
		}
		t.put(timeline.GPUMemUsed, total-free)
	}
	if h.throttle < 0 {
		return putReasons(t, h.cols, h.reasons, f, parseActive)
	}
	mask, ok, err := parseHexMask(f[h.throttle])
	if err != nil {
		return fmt.Errorf("%s: %w", h.cols[h.throttle].name, err)
	}
	v := math.NaN()
	if ok {
		v = ThrottleFromNVML(mask)
	}
	t.put(timeline.GPUThrottle, v)
	return nil
}
