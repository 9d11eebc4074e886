package importer

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// `nvidia-smi dmon` prints a pair of comment lines naming its columns and
// their units, repeated every screenful, then one line per GPU per second:
//
//	# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk
//	# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz
//	    0     10     52      -      5      7      0      0      0      0    405    225
//
// Older drivers have one `temp` column and no jpg/ofa; `-s` picks other
// groups (fb in MB, pviol/tviol, rxpci/txpci in MB/s, ecc errors), `-o DT`
// adds `#Date Time` columns (YYYYMMDD hh:mm:ss, local time without a zone),
// and `--format csv` separates the same fields with commas. A `-` is a value
// the GPU does not report. Columns are read by name, so any layout works.

// dmonMetrics are the dmon columns gputop reads, by lowercased name: the
// metrics it imports, and the gpu, date and time that place them. dmon's
// MB is MiB, as everywhere in nvidia-smi.
var dmonMetrics = map[string]column{
	"pwr":   {kind: colMetric, metric: timeline.GPUPower, unit: unitWatts},
	"gtemp": {kind: colMetric, metric: timeline.GPUTemp, unit: unitCelsius},
	"temp":  {kind: colMetric, metric: timeline.GPUTemp, unit: unitCelsius},
	"sm":    {kind: colMetric, metric: timeline.GPUUtil, unit: unitPercent},
	"mem":   {kind: colMetric, metric: timeline.GPUMemUtil, unit: unitPercent},
	"mclk":  {kind: colMetric, metric: timeline.GPUClockMem, unit: unitMHz},
	"pclk":  {kind: colMetric, metric: timeline.GPUClockSM, unit: unitMHz},
	"fb":    {kind: colMetric, metric: timeline.GPUMemUsed, unit: unitMiB, scale: MiB},
	"rxpci": {kind: colMetric, metric: timeline.GPUPCIeRx, unit: unitMBps},
	"txpci": {kind: colMetric, metric: timeline.GPUPCIeTx, unit: unitMBps},
	"gpu":   {kind: colIndex},
	"date":  {kind: colDate},
	"time":  {kind: colTime},
	// Violation columns: the share of the interval clocks were held back by
	// power (pviol, %) or heat (tviol); either above 0 sets the bit.
	"pviol": {kind: colReason, bit: timeline.ThrottlePowerCap},
	"tviol": {kind: colReason, bit: timeline.ThrottleSWThermal},
}

// dmonHeader is how to read the rows under one `# gpu ...` line.
type dmonHeader struct {
	cols             []column
	gpu, date, clock int // column indexes, or -1
	reasons          []int
	names            string // the column names, to spot a repeated header
}

func (h *dmonHeader) timed() bool     { return h.clock >= 0 }
func (h *dmonHeader) clockOnly() bool { return h.clock >= 0 && h.date < 0 }

// newDmonHeader reads a `# gpu pwr ...` line; ok is false for a comment
// that is not one (it must name the gpu column and a column gputop imports).
func newDmonHeader(tokens []string) (*dmonHeader, bool) {
	h := &dmonHeader{cols: make([]column, len(tokens))}
	imports := false
	for i, tok := range tokens {
		name := strings.ToLower(tok)
		c := dmonMetrics[name]
		c.name = CleanLabel(name)
		if c.kind == colReason {
			h.reasons = append(h.reasons, i)
		}
		imports = imports || c.kind == colMetric || c.kind == colReason
		h.cols[i] = c
	}
	h.gpu = firstOf(h.cols, colIndex)
	h.date = firstOf(h.cols, colDate)
	h.clock = firstOf(h.cols, colTime)
	keepOnePerMetric(h.cols)
	h.names = strings.Join(tokens, " ")
	return h, h.gpu >= 0 && imports
}

// isDmonUnits says whether header words are dmon's unit line (`# Idx W C`).
func isDmonUnits(tokens []string) bool {
	return slices.ContainsFunc(tokens, func(t string) bool { return strings.EqualFold(t, "Idx") })
}

// parseDmon reads `nvidia-smi dmon` output.
func parseDmon(lines *lineReader) (*table, error) {
	t := newTable()
	t.keyed = true
	var h *dmonHeader
	var tokens []string
	day, lastClock := time.Duration(0), time.Duration(-1)
	for {
		text, n, err := lines.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		trimmed := strings.TrimSpace(text)
		if trimmed == "" {
			continue
		}
		if trimmed[0] == '#' {
			tokens = splitFields(strings.TrimLeft(trimmed, "#"), tokens) // the words without the '#'s
			if isDmonUnits(tokens) {
				continue
			}
			next, ok := newDmonHeader(tokens)
			if !ok {
				continue // a comment
			}
			if h != nil && next.names == h.names {
				continue // dmon repeats its header every screenful
			}
			if h != nil && (next.timed() != h.timed() || next.clockOnly() != h.clockOnly()) {
				return nil, fmt.Errorf("line %d: a new header that adds or drops the Date/Time columns: import each part on its own", n)
			}
			h = next
			t.timed, t.clock = h.timed(), h.clockOnly()
			t.noteDmon(h)
			continue
		}
		if h == nil {
			t.fail(n, errors.New("a data line before dmon's '# gpu ...' header"))
			continue
		}
		tokens = splitFields(trimmed, tokens)
		if len(tokens) != len(h.cols) {
			t.fail(n, fmt.Errorf("%d fields, header has %d", len(tokens), len(h.cols)))
			continue
		}
		gpu, err := parseIndex(tokens[h.gpu])
		if err != nil {
			t.fail(n, err)
			continue
		}
		r := row{line: int32(n), gpu: int16(gpu), ident: -1}
		if t.timed {
			if err := h.parseTime(t, tokens, &r, &day, &lastClock); err != nil {
				t.fail(n, err)
				continue
			}
		}
		switch err := t.add(r, func() error { return h.parseValues(t, tokens) }); {
		case errors.Is(err, errTooLarge), errors.Is(err, errLayouts):
			return nil, err
		case err != nil:
			t.fail(n, err)
		}
	}
	if h == nil {
		return nil, errors.New("no dmon header ('# gpu pwr ...') in the log")
	}
	return t, nil
}

// parseTime reads a row's Date and Time, or its Time alone (as an offset
// from the first row's midnight, counting the midnights passed since).
func (h *dmonHeader) parseTime(t *table, tokens []string, r *row, day, lastClock *time.Duration) error {
	clock, err := parseClock(tokens[h.clock])
	if err != nil {
		return err
	}
	if h.date < 0 {
		// A time of day more than 12 h before the last one is the next day.
		if *lastClock >= 0 && clock < *lastClock-12*time.Hour {
			*day += 24 * time.Hour
		}
		*lastClock = clock
		r.at = int64(*day + clock)
		return nil
	}
	date, err := parseDate(tokens[h.date])
	if err != nil {
		return err
	}
	r.at = date.Add(clock).UnixNano()
	t.zoneless = true
	return nil
}

// parseValues appends one row's readings, in column order.
func (h *dmonHeader) parseValues(t *table, tokens []string) error {
	if err := putMetrics(t, h.cols, tokens); err != nil {
		return err
	}
	return putReasons(t, h.cols, h.reasons, tokens, parseViolation)
}

// parseViolation reads one of dmon's violation columns (pviol, tviol): the
// share of the second clocks were held back, active above 0.
func parseViolation(s string) (active, ok bool, err error) {
	v, err := parseValue(s, unitPercent, 0)
	return v > 0, !math.IsNaN(v), err
}

// noteDmon says what a dmon header's columns became.
func (t *table) noteDmon(h *dmonHeader) {
	for _, c := range h.cols {
		switch c.name {
		case "sm":
			t.note("utilization is dmon's sm %%: the same coarse kernel-active measure as nvidia-smi's utilization.gpu")
		case "pclk":
			t.note("the SM clock is dmon's pclk (processor clock)")
		case "pviol", "tviol":
			t.note("throttle reasons come from dmon's pviol (power cap) and tviol (thermal): set when above 0 in that second")
		}
	}
	if h.date >= 0 && h.clock < 0 {
		t.note("dmon's Date column without Time is not enough to place samples: it is not used")
	}
}
