package importer

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gputop-dev/gputop/timeline"
)

// table is what a parser read from a log: one row per GPU per sampling
// instant, in log order, before rows are grouped into samples. Each parser
// fills one; result (assemble.go) turns it into a Log.
//
// It is the import's memory, so it is compact: a row is 32 bytes, and its
// readings are bare float64s in vals (row.lo on), their metrics named once
// per layout (the metrics of a header's rows, in column order), not once
// per value. A million-line log of 11 columns is 32 MB of rows and 88 MB of
// values; as []timeline.Sample it was 600 MB.
type table struct {
	rows []row
	vals []float64

	// layouts are the distinct lists of metrics rows carry; row.layout
	// indexes it. cur is the list of the row being read (put).
	layouts [][]string
	cur     []string

	// timed says the rows carry their own times (row.at). clock says those
	// times are only times of day (dmon -o T): row.at is then nanoseconds
	// since the first row's midnight.
	timed, clock bool
	// zoneless says some timestamps had no time zone and were read as UTC.
	zoneless bool
	// keyed says rows name their GPU (index column, uuid, dmon's gpu,
	// DCGM's entity); otherwise GPUs are told apart by row order (bursts.go).
	keyed bool

	// idents are the distinct (name, uuid) pairs rows carry; row.ident
	// indexes it. Rows share them so that a million rows hold a few strings.
	idents  []gpuText
	identID map[gpuText]int
	// mig marks the GPUs (by index) that are MIG instances.
	mig   map[int]bool
	notes []string
	noted map[string]bool
	// outside counts the readings left out for being outside their
	// metric's physical range (ranges.go).
	outside RangeTally

	goodLines int   // data lines read
	badLines  int   // data lines that could not be read
	firstBad  error // the first of them, with its line number
}

// row is one GPU's readings at one instant: vals[lo:lo+len(layouts[layout])].
type row struct {
	at int64 // unix nanoseconds, when the table is timed
	lo uint32
	// line is the row's line in the log, for notes.
	line int32
	// ident indexes table.idents: the GPU's name and uuid as the row gives
	// them, or -1.
	ident int32
	// run counts the header lines seen before the row: a repeated header in
	// a CSV starts a new run of the monitor, and no burst spans two runs.
	run int32
	// gpu is the GPU's index, or -1 until bursts.go infers it from the
	// row's place in its sampling burst.
	gpu    int16
	layout uint16
}

// gpuText is a GPU's name and uuid as a row gives them.
type gpuText struct{ name, uuid string }

// Bounds of a table: what the compact row can hold. A log past them is
// hundreds of gigabytes, not a monitor's output.
const (
	maxLines   = math.MaxInt32
	maxVals    = math.MaxUint32
	maxLayouts = math.MaxUint16
)

var (
	errTooLarge = errors.New("more readings than one import holds (4 billion): import the log in parts")
	errLayouts  = errors.New("the columns change too often to import")
)

func newTable() *table {
	return &table{identID: map[gpuText]int{}, mig: map[int]bool{}, noted: map[string]bool{}}
}

// put appends one reading of the row being read, in gputop's units: a
// value outside its metric's physical range is a gap (NaN), counted for a
// note.
func (t *table) put(metric string, v float64) {
	t.cur = append(t.cur, metric)
	t.vals = append(t.vals, t.outside.Check(metric, v))
}

// add appends row r with the readings fill puts (put), and returns fill's
// error, if it fails, with no reading of the row left behind.
func (t *table) add(r row, fill func() error) error {
	t.cur = t.cur[:0]
	lo := len(t.vals)
	if err := fill(); err != nil {
		t.vals = t.vals[:lo]
		return err
	}
	if len(t.vals) > maxVals || len(t.rows) >= maxLines {
		return errTooLarge
	}
	id, err := t.layoutOf(t.cur)
	if err != nil {
		return err
	}
	r.lo, r.layout = uint32(lo), id
	t.rows = append(t.rows, r)
	t.goodLines++
	return nil
}

// layoutOf interns a row's list of metrics: nearly every row has the one
// the row before it had.
func (t *table) layoutOf(names []string) (uint16, error) {
	if n := len(t.layouts); n > 0 && slices.Equal(t.layouts[n-1], names) {
		return uint16(n - 1), nil
	}
	for i, l := range t.layouts {
		if slices.Equal(l, names) {
			return uint16(i), nil
		}
	}
	if len(t.layouts) >= maxLayouts {
		return 0, errLayouts
	}
	t.layouts = append(t.layouts, slices.Clone(names))
	return uint16(len(t.layouts) - 1), nil
}

// metrics are row r's metric names and values.
func (t *table) metrics(r *row) ([]string, []float64) {
	names := t.layouts[r.layout]
	return names, t.vals[r.lo : int(r.lo)+len(names)]
}

// fail records a data line that could not be read; the import goes on, and
// result refuses the log if most lines failed.
func (t *table) fail(line int, err error) {
	t.badLines++
	if t.firstBad == nil {
		t.firstBad = fmt.Errorf("line %d: %w", line, err)
	}
}

// ident interns a row's name and uuid; -1 when it has neither. Both are
// outside text, made safe for a terminal (timeline.CleanText).
func (t *table) ident(name, uuid string) int32 {
	if name == "" && uuid == "" {
		return -1
	}
	k := gpuText{name, uuid}
	if id, ok := t.identID[k]; ok {
		return int32(id)
	}
	t.identID[gpuText{strings.Clone(name), strings.Clone(uuid)}] = len(t.idents)
	t.idents = append(t.idents, gpuText{CleanLabel(name), CleanLabel(uuid)})
	return int32(len(t.idents) - 1)
}

// note adds one line to the import's notes, once.
func (t *table) note(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if !t.noted[s] {
		t.noted[s] = true
		t.notes = append(t.notes, s)
	}
}

// maxLabel bounds a name taken from outside (a GPU's name, a host's, a
// column's): real ones are under 100 characters.
const maxLabel = 200

// CleanLabel makes outside text fit to show: no escape sequences or
// control characters (timeline.CleanText), at most maxLabel bytes, cut at
// a character.
func CleanLabel(s string) string {
	return CutText(strings.TrimSpace(timeline.CleanText(s)), maxLabel)
}

// CutText is s, or, if it is longer than most bytes, as much of it as
// fits, cut at a character, and "…".
func CutText(s string, most int) string {
	if len(s) <= most {
		return s
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
