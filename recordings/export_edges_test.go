package recordings

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// A file cut short exports every sample before the cut, exactly as a file
// of just those samples does, and returns the DamagedError.
func TestExportTornFile(t *testing.T) {
	ss := samples(45, 2)
	rec := writeMem(t, ss, 20*time.Second)
	cut := rec.ends[30] + 7 // inside sample 31's chunk
	for _, format := range ExportFormats {
		r, err := openMem(rec.data[:cut])
		if err != nil {
			t.Fatal(err)
		}
		var torn bytes.Buffer
		err = Export(r, &torn, format)
		wantDamaged(t, string(format), err, ss[30].At)

		whole, err := openMem(writeMem(t, ss[:31], 20*time.Second).data)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := Export(whole, &want, format); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(torn.Bytes(), want.Bytes()) {
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
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := Export(r, &bytes.Buffer{}, "xml"); err == nil || !strings.Contains(err.Error(), `"xml"`) {
		t.Errorf("format xml: %v", err)
	}
	for _, format := range ExportFormats {
		r, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := Export(r, writeFailer{}, format); !errors.Is(err, errWriteFailed) {
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
//	go test ./recordings/ -run TestExportGolden -update
func TestExportGolden(t *testing.T) {
	path := exportFile(t, t.TempDir())
	for _, c := range []struct {
		format ExportFormat
		golden string
	}{
		{ExportCSV, "testdata/export.csv"},
		{ExportJSONL, "testdata/export.jsonl"},
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
	tbl := parseCSV(t, exportOf(t, path, ExportCSV))
	if len(tbl.rows) != exportRows {
		t.Fatalf("%d rows, want %d", len(tbl.rows), exportRows)
	}
	if got := cells(tbl.of("marker"), "marker"); slices.Contains(got, "dropped with its sample") {
		t.Errorf("markers %q include the dropped sample's", got)
	}
	if got := cells(tbl.of("gpu0"), "power_w"); !slices.Equal(got, []string{"400", "412.345", "412.345", "412.345"}) {
		t.Errorf("power_w %q", got)
	}
}

// A header without a start time counts elapsed_s from the first sample.
func TestExportElapsedWithoutStart(t *testing.T) {
	tbl := newExportTable(time.Time{})
	for i, want := range []time.Duration{0, 1500 * time.Millisecond} {
		s := timeline.Sample{At: t0.Add(time.Hour + want), Metrics: []timeline.Metric{
			{Key: timeline.Key{Name: timeline.HostLoad1, Device: timeline.HostDevice}, Value: 1}}}
		rows := tbl.rows(&s, timeline.Derive(&s, nil))
		if len(rows) != 1 {
			t.Fatalf("sample %d: %d rows, want the host's", i, len(rows))
		}
		if rows[0].elapsed != want {
			t.Errorf("sample %d: elapsed %v, want %v", i, rows[0].elapsed, want)
		}
	}
}
