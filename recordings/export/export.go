package export

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/timeline"
)

// Format is the output format of Write: "csv" or "jsonl".
type Format string

// The formats Write writes. Both have the same rows and column names,
// documented in docs/export.md.
const (
	// CSV is comma-separated values with one header row, for pandas
	// (pd.read_csv(path) without options) and spreadsheets.
	CSV Format = "csv"
	// JSONL is one JSON object per line, for jq: null for an unknown
	// value, and only the columns that apply to the row's device.
	JSONL Format = "jsonl"
)

// Write writes every sample r has left to read (all of them for a Reader
// just opened; after SeekTime, those from that time on) to w as a tidy
// table: a row per GPU, one for the host, one per process tree (the
// wrapped job, gputop itself) per sample, and a row per marker. Values are
// the display values the screen shows, derived by timeline.Deriver: power
// (the driver's one-second average, or the energy counter's rate where
// samples are 5 s or more apart), CPU shares from CPU seconds, bytes per
// second from byte counters. GPU rows say who holds the GPU (owner_*
// columns) where the recording names owners; the CSV's header has those
// columns where its first two minutes do (readAhead).
//
// It returns after the last sample. A recording that is damaged (gaps in
// the middle, cut short, never closed) exports every sample that could be
// read, then the *DamagedError is returned, so the caller prints a warning
// and keeps the output. An error writing to w is returned as soon as it is
// seen.
func Write(r *recordings.Reader, w io.Writer, format Format) error {
	// The CSV header has the owner columns where the recording names an
	// owner in its first readings (ownersAhead); the samples read to see
	// it are written first.
	ahead, aheadErr := readAhead(r)
	var sink rowSink
	var err error // writing the CSV's header
	switch format {
	case CSV:
		sink, err = newCSVSink(w, slices.ContainsFunc(ahead, func(s timeline.Sample) bool { return len(s.Owners) > 0 }))
	case JSONL:
		sink = newJSONLSink(w)
	default:
		return fmt.Errorf("unknown export format %q (want csv or jsonl)", format)
	}
	if err != nil {
		return err
	}
	table := newExportTable(r.Header().Start)
	var (
		deriver timeline.Deriver
		// held keeps the previous sample alive: the Deriver keeps a pointer
		// to it and derives the next one against it.
		held [2]timeline.Sample
		n    int
	)
	read := func() (timeline.Sample, error) {
		if len(ahead) > 0 {
			s := ahead[0]
			ahead = ahead[1:]
			return s, nil
		}
		if aheadErr != nil { // it ends the export, as r.Read's would
			return timeline.Sample{}, aheadErr
		}
		return r.Read()
	}
	for {
		s, err := read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil // the end: only a write error is left to say
			}
			return cmp.Or(sink.flush(), err)
		}
		// The Store drops a sample that is not later than the last one, so
		// the screen never shows it; neither does the export.
		if n > 0 && !s.At.After(held[(n-1)%2].At) {
			continue
		}
		cur := &held[n%2]
		*cur = s
		n++
		nums := deriver.Next(cur)
		for _, row := range table.rows(cur, deriver.Keys(), nums, r.Info()) {
			if err := sink.row(row); err != nil {
				return err
			}
		}
	}
}

// ownersAhead is how far Write reads before its header: owners come with
// the process tier's first reading, 5 s in, so two minutes of samples
// (and at most aheadSamples) hold them wherever the node has them at the
// start. An owner first named later is in the JSONL only.
const (
	ownersAhead  = 2 * time.Minute
	aheadSamples = 4096
)

// readAhead reads the first samples of r, up to ownersAhead of sample
// time or the first that names an owner, and the error that stopped it.
func readAhead(r *recordings.Reader) ([]timeline.Sample, error) {
	var out []timeline.Sample
	for len(out) < aheadSamples {
		s, err := r.Read()
		if err != nil {
			return out, err
		}
		out = append(out, s)
		if len(s.Owners) > 0 || s.At.Sub(out[0].At) >= ownersAhead {
			break
		}
	}
	return out, nil
}
