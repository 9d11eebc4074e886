package export

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/recordings/recordingstest"
	"github.com/gputop-dev/gputop/timeline"
)

// A file cut short exports every sample before the cut, exactly as a file
// of just those samples does, and returns the DamagedError.
func TestExportTornFile(t *testing.T) {
	ss := recordingstest.Samples(45, 2)
	dir := t.TempDir()
	torn := filepath.Join(dir, "torn.gtr")
	w, err := recordings.Create(torn, recordings.Header{Version: "test", Info: recordingstest.Info(2, time.Second)}, false)
	if err != nil {
		t.Fatal(err)
	}
	var cut int64
	for i := range ss {
		if err := w.Write(&ss[i]); err != nil { // at 1 s, each sample is flushed as written
			t.Fatal(err)
		}
		if i == 30 {
			fi, err := os.Stat(torn)
			if err != nil {
				t.Fatal(err)
			}
			cut = fi.Size() + 7 // inside sample 31's chunk
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(torn, cut); err != nil {
		t.Fatal(err)
	}
	whole := filepath.Join(dir, "whole.gtr")
	writeFile(t, whole, recordings.Header{Version: "test", Info: recordingstest.Info(2, time.Second)}, ss[:31])
	for _, format := range Formats {
		r, err := recordings.Open(torn)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		err = Write(r, &got, format)
		r.Close()
		var damaged *recordings.DamagedError
		if !errors.As(err, &damaged) || !damaged.Good.Equal(ss[30].At) {
			t.Fatalf("%s: export of a torn file returned %v; want it damaged after %v", format, err, ss[30].At)
		}
		if want := exportOf(t, whole, format); !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: the torn file's export differs from the export of its first 31 samples", format)
		}
	}
}

// writeFailer fails every write, like a pipe whose reader went away.
type writeFailer struct{}

var errWriteFailed = errors.New("broken pipe")

func (writeFailer) Write([]byte) (int, error) { return 0, errWriteFailed }

func TestExportErrors(t *testing.T) {
	path := exportFile(t, t.TempDir())
	r, err := recordings.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := Write(r, &bytes.Buffer{}, "xml"); err == nil || !strings.Contains(err.Error(), `"xml"`) {
		t.Errorf("format xml: %v", err)
	}
	for _, format := range Formats {
		r, err := recordings.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := Write(r, writeFailer{}, format); !errors.Is(err, errWriteFailed) {
			t.Errorf("%s to a failing writer: %v, want the write error", format, err)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// The golden files show the format; a change to them is a change to the
// contract in docs/export.md. Regenerate with
//
//	go test ./recordings/export/ -run TestExportGolden -update
func TestExportGolden(t *testing.T) {
	path := exportFile(t, t.TempDir())
	for _, c := range []struct {
		format Format
		golden string
	}{
		{CSV, "testdata/export.csv"},
		{JSONL, "testdata/export.jsonl"},
	} {
		got := exportOf(t, path, c.format)
		if *update {
			if err := os.WriteFile(c.golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(c.golden)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s:\n%s", c.format, c.golden, got)
		}
	}
}

// A sample not later than the one before it is not shown on the screen
// (the Store drops it), so it is not exported either, and rates go on from
// the sample before it.
func TestExportSkipsSamplesOutOfOrder(t *testing.T) {
	h, ss := exportRecording()
	again := ss[1]
	again.Markers = []timeline.Marker{{At: again.At, Text: "dropped with its sample", Origin: "key"}}
	earlier := ss[2]
	earlier.At = ss[1].At.Add(-time.Millisecond)
	ss = slices.Insert(ss, 2, again, earlier)
	path := filepath.Join(t.TempDir(), "order.gtr")
	writeFile(t, path, h, ss)
	// The export goes on past them, and says so: the reader's warning.
	r, err := recordings.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out bytes.Buffer
	var damaged *recordings.DamagedError
	if err := Write(r, &out, CSV); !errors.As(err, &damaged) || !strings.Contains(err.Error(), "2 samples at or before the one before left out") {
		t.Fatalf("export of samples out of order: %v, want the warning that names them", err)
	}
	tbl := parseCSV(t, out.Bytes())
	if len(tbl.rows) != exportRows {
		t.Fatalf("%d rows, want %d", len(tbl.rows), exportRows)
	}
	if got := cells(tbl.of("marker"), "marker"); slices.Contains(got, "dropped with its sample") {
		t.Errorf("markers %q include the dropped sample's", got)
	}
	if got := cells(tbl.of("gpu0"), "power_w"); !slices.Equal(got, []string{"400", "400", "400", "400"}) {
		t.Errorf("power_w %q", got)
	}
}

// A header without a start time counts elapsed_s from the first sample.
func TestExportElapsedWithoutStart(t *testing.T) {
	tbl := newExportTable(time.Time{})
	for i, want := range []time.Duration{0, 1500 * time.Millisecond} {
		s := timeline.Sample{At: recordingstest.T0.Add(time.Hour + want)}.WithMetrics([]timeline.Metric{
			{Key: timeline.Key{Name: timeline.HostLoad1, Device: timeline.HostDevice}, Value: 1}})
		var d timeline.Deriver
		nums := d.Next(&s)
		rows := tbl.rows(&s, d.Keys(), nums, timeline.SourceInfo{})
		if len(rows) != 1 {
			t.Fatalf("sample %d: %d rows, want the host's", i, len(rows))
		}
		if rows[0].elapsed != want {
			t.Errorf("sample %d: elapsed %v, want %v", i, rows[0].elapsed, want)
		}
	}
}
