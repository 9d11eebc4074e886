package importer

import (
	"fmt"
	"strings"
)

// table is what a parser read from a log: one row per GPU per sampling
// instant, in log order, before rows are grouped into samples. Each parser
// fills one; result (assemble.go) turns it into a Result.
type table struct {
	rows []row
	vals []reading // every row's readings, back to back (row.lo:row.hi)

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

	goodLines int   // data lines read
	badLines  int   // data lines that could not be read
	firstBad  error // the first of them, with its line number
}

// row is one GPU's readings at one instant.
type row struct {
	line int
	at   int64 // unix nanoseconds, when the table is timed
	// gpu is the GPU's index, or -1 until bursts.go infers it from the
	// row's place in its sampling burst.
	gpu int
	// ident indexes table.idents: the GPU's name and uuid as the row gives
	// them, or -1.
	ident int
	// run counts the header lines seen before the row: a repeated header in
	// a CSV starts a new run of the monitor, and no burst spans two runs.
	run    int
	lo, hi int
}

// reading is one metric value of a row, in gputop's units.
type reading struct {
	metric string
	value  float64
}

// gpuText is a GPU's name and uuid as a row gives them.
type gpuText struct{ name, uuid string }

func newTable() *table {
	return &table{identID: map[gpuText]int{}, mig: map[int]bool{}, noted: map[string]bool{}}
}

// add appends a row whose readings are the table's vals from lo on.
func (t *table) add(r row, lo int) {
	r.lo, r.hi = lo, len(t.vals)
	t.rows = append(t.rows, r)
	t.goodLines++
}

// fail records a data line that could not be read; the import goes on, and
// result refuses the log if most lines failed.
func (t *table) fail(line int, err error) {
	t.badLines++
	if t.firstBad == nil {
		t.firstBad = fmt.Errorf("line %d: %w", line, err)
	}
}

// ident interns a row's name and uuid; -1 when it has neither.
func (t *table) ident(name, uuid string) int {
	if name == "" && uuid == "" {
		return -1
	}
	k := gpuText{name, uuid}
	if id, ok := t.identID[k]; ok {
		return id
	}
	k = gpuText{strings.Clone(name), strings.Clone(uuid)}
	t.identID[k] = len(t.idents)
	t.idents = append(t.idents, k)
	return len(t.idents) - 1
}

// note adds one line to the import's notes, once.
func (t *table) note(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if !t.noted[s] {
		t.noted[s] = true
		t.notes = append(t.notes, s)
	}
}
