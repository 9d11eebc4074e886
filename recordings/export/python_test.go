package export

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// readCSVScript reads an export the way a user would: pd.read_csv(path)
// with no options when pandas is installed, else Python's csv module (which
// proves at least that the file is plain CSV). It prints what it found as
// JSON for the test to check.
const readCSVScript = `
import json, math, sys
path = sys.argv[1]
try:
    import pandas as pd
except ImportError:
    pd = None
if pd is not None:
    df = pd.read_csv(path)
    text = {"time", "device", "status", "error", "throttle_reasons", "marker", "marker_origin", "hostname", "mig_profile",
            "nvlink_down"}
    gpu0 = df[df.device == "gpu0"]
    out = {
        "reader": "pandas " + pd.__version__,
        "columns": list(df.columns),
        "rows": len(df),
        # Every number column reads as numbers, not as text.
        "not_numeric": [c for c in df.columns if c not in text and not pd.api.types.is_numeric_dtype(df[c])],
        "power_w": [None if math.isnan(v) else v for v in gpu0.power_w],
        "util_pct": [None if math.isnan(v) else v for v in gpu0.util_pct],
        "markers": list(df[df.device == "marker"].marker),
        "first_time": pd.to_datetime(df.time).iloc[0].isoformat(),
    }
else:
    import csv
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    col = {name: i for i, name in enumerate(header)}
    gpu0 = [r for r in body if r[col["device"]] == "gpu0"]
    num = lambda s: None if s == "" else float(s)
    out = {
        "reader": "csv module",
        "columns": header,
        "rows": len(body),
        "not_numeric": [],
        "power_w": [num(r[col["power_w"]]) for r in gpu0],
        "util_pct": [num(r[col["util_pct"]]) for r in gpu0],
        "markers": [r[col["marker"]] for r in body if r[col["device"]] == "marker"],
        "first_time": body[0][col["time"]],
        "ragged": [i for i, r in enumerate(body) if len(r) != len(header)],
    }
print(json.dumps(out))
`

// pythons are the interpreters to try: the one on PATH, and Debian's, where
// apt's python3-pandas installs pandas, when it is another one.
func pythons() []string {
	var out []string
	if p, err := exec.LookPath("python3"); err == nil {
		out = append(out, p)
	}
	if _, err := os.Stat("/usr/bin/python3"); err == nil && !slices.Contains(out, "/usr/bin/python3") {
		out = append(out, "/usr/bin/python3")
	}
	return out
}

// pythonRead is what readCSVScript found.
type pythonRead struct {
	Reader     string     `json:"reader"`
	Columns    []string   `json:"columns"`
	Rows       int        `json:"rows"`
	NotNumeric []string   `json:"not_numeric"`
	PowerW     []*float64 `json:"power_w"`
	UtilPct    []*float64 `json:"util_pct"`
	Markers    []string   `json:"markers"`
	FirstTime  string     `json:"first_time"`
	Ragged     []int      `json:"ragged"`
}

// readInPython reads the CSV at path with each python3 in turn until one
// has pandas, and returns what pandas found, or else what the csv module
// of the first found. ok is false when there is no python3 at all.
func readInPython(t *testing.T, path string) (got pythonRead, ok bool) {
	t.Helper()
	for i, python := range pythons() {
		out, err := exec.Command(python, "-c", readCSVScript, path).Output()
		if err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				t.Fatalf("%s: %v\n%s", python, err, ee.Stderr)
			}
			t.Fatal(err)
		}
		var read pythonRead
		if err := json.Unmarshal(out, &read); err != nil {
			t.Fatalf("%s: %v: %s", python, err, out)
		}
		if i == 0 || strings.HasPrefix(read.Reader, "pandas") {
			got, ok = read, true
			t.Logf("read with %s (%s)", read.Reader, python)
		}
		if strings.HasPrefix(read.Reader, "pandas") {
			break
		}
	}
	return got, ok
}

// The CSV export reads in pandas without options: one header row, the
// documented columns, numbers as numbers, unknown as NaN, markers whole.
func TestExportReadsInPython(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "export.csv")
	if err := os.WriteFile(csvPath, exportOf(t, exportFile(t, dir), CSV), 0o644); err != nil {
		t.Fatal(err)
	}
	got, ok := readInPython(t, csvPath)
	if !ok {
		timelinetest.Unavailable(t, "no python3 here")
	}
	if !slices.Equal(got.Columns, exportColumns) || got.Rows != exportRows {
		t.Errorf("%d rows of %q; want %d rows of %q", got.Rows, got.Columns, exportRows, exportColumns)
	}
	if len(got.NotNumeric) > 0 || len(got.Ragged) > 0 {
		t.Errorf("columns read as text: %q; rows of the wrong length: %v", got.NotNumeric, got.Ragged)
	}
	num := func(p []*float64) []float64 {
		var out []float64
		for _, v := range p {
			if v == nil {
				out = append(out, -1) // NaN, marked so it compares
				continue
			}
			out = append(out, *v)
		}
		return out
	}
	if p := num(got.PowerW); !slices.Equal(p, []float64{400, 400, 400, 400}) {
		t.Errorf("gpu0 power_w %v", p)
	}
	if u := num(got.UtilPct); !slices.Equal(u, []float64{97.1667, 97.1667, -1, 97.1667}) {
		t.Errorf("gpu0 util_pct %v (-1 is NaN)", u)
	}
	if !slices.Equal(got.Markers, []string{`epoch 1, "warmup" done`, "ünïcode ✓, \"two\""}) {
		t.Errorf("markers %q", got.Markers)
	}
	if got.FirstTime != "2026-03-14T09:26:53.250000+00:00" && got.FirstTime != "2026-03-14T09:26:53.250Z" {
		t.Errorf("first time %q", got.FirstTime)
	}
}
