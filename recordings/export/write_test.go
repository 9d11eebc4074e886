package export

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gputop-dev/gputop/recordings/recordingstest"
	"github.com/gputop-dev/gputop/timeline"
)

// Numbers read as plain decimals everywhere: whole numbers exactly, others
// to six significant digits with float noise rounded away.
func TestAppendNumber(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0"},
		{math.Copysign(0, -1), "0"},
		{97, "97"},
		{-3, "-3"},
		{85520809984, "85520809984"},
		{1 << 60, "1152921504606846976"},
		{583.0 / 6, "97.1667"},
		{412.345, "412.345"},
		{1412.346, "1412.35"},
		{399999999.99999994, "400000000"},
		{250123456.7, "250123457"},
		{0.1 + 0.2, "0.3"},
		{75.00000000000001, "75"},
		{9.9999996, "10"},
		{0.000412, "0.000412"},
		{0.000123456789, "0.000123457"},
		{-0.5, "-0.5"},
		{2.5e-10, "0.00000000025"},
	} {
		got, known := appendNumber(nil, c.v)
		if string(got) != c.want || !known {
			t.Errorf("appendNumber(%v) = %q, %v; want %q", c.v, got, known, c.want)
		}
	}
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if got, known := appendNumber(nil, v); len(got) != 0 || known {
			t.Errorf("appendNumber(%v) = %q, %v; want unknown", v, got, known)
		}
	}
}

func TestAppendElapsedAndTime(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0"},
		{time.Hour, "3600"},
		{1500 * time.Millisecond, "1.5"},
		{time.Nanosecond, "0.000000001"},
		{-250 * time.Millisecond, "-0.25"},
		{86400*time.Second + 123456789, "86400.123456789"},
	} {
		if got := string(appendElapsed(nil, c.d)); got != c.want {
			t.Errorf("appendElapsed(%v) = %q, want %q", c.d, got, c.want)
		}
	}
	at := time.Date(2026, 3, 14, 10, 26, 53, 0, time.FixedZone("CET", 3600))
	for _, c := range []struct {
		t    time.Time
		want string
	}{
		{at, "2026-03-14T09:26:53.000Z"},
		{at.Add(250*time.Millisecond + 999*time.Microsecond), "2026-03-14T09:26:53.250Z"},
	} {
		if got := string(appendTime(nil, c.t)); got != c.want {
			t.Errorf("appendTime(%v) = %q, want %q", c.t, got, c.want)
		}
	}
}

var plainDecimal = regexp.MustCompile(`^-?[0-9]+(\.[0-9]*[1-9])?$`)

// FuzzExportNumber checks that every number is a plain decimal that reads
// back as the value: exactly for a whole number, to six significant
// digits (or the nearest integer, for large values) otherwise.
func FuzzExportNumber(f *testing.F) {
	for _, v := range []float64{0, 97, 583.0 / 6, 399999999.99999994, 1e-7, 1e300, -0.5, 123456.789} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		text, known := appendNumber(nil, v)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			if known || len(text) > 0 {
				t.Fatalf("%v: %q, want unknown", v, text)
			}
			return
		}
		if !plainDecimal.Match(text) {
			t.Fatalf("%v: %q is not a plain decimal", v, text)
		}
		got, err := strconv.ParseFloat(string(text), 64)
		if err != nil {
			t.Fatal(err)
		}
		if v == math.Trunc(v) {
			if got != v {
				t.Fatalf("%v: whole number read back as %v", v, got)
			}
			return
		}
		if diff := math.Abs(got - v); diff > math.Abs(v)*5e-6 && diff > 0.5 {
			t.Fatalf("%v: %q is %v off", v, text, diff)
		}
	})
}

// FuzzExportText checks that any marker text, commas, quotes, newlines
// and all, comes back out of the CSV and JSONL whole.
func FuzzExportText(f *testing.F) {
	for _, s := range []string{"epoch 1", `a, "b"`, "two\nlines", "", " lead", "=1+1", "\x00\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		tbl := newExportTable(recordingstest.T0)
		s := timeline.Sample{At: recordingstest.T0, Markers: []timeline.Marker{{At: recordingstest.T0, Text: text, Origin: "job"}}}
		rows := tbl.rows(&s, nil, nil, timeline.SourceInfo{})
		if len(rows) != 1 {
			t.Fatalf("%d rows for one marker", len(rows))
		}

		var c bytes.Buffer
		sink, err := newCSVSink(&c, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := sink.row(rows[0]); err != nil {
			t.Fatal(err)
		}
		if err := sink.flush(); err != nil {
			t.Fatal(err)
		}
		records, err := csv.NewReader(&c).ReadAll()
		if err != nil {
			t.Fatalf("%q: CSV does not parse: %v", text, err)
		}
		records = records[1:] // the header row
		// encoding/csv reads a quoted \r\n as \n, as spreadsheets do.
		if len(records) != 1 || records[0][colMarker] != strings.ReplaceAll(text, "\r\n", "\n") {
			t.Fatalf("%q: CSV read back as %q", text, records)
		}

		var j bytes.Buffer
		js := newJSONLSink(&j)
		if err := js.row(rows[0]); err != nil {
			t.Fatal(err)
		}
		if err := js.flush(); err != nil {
			t.Fatal(err)
		}
		if bytes.Count(j.Bytes(), []byte("\n")) != 1 {
			t.Fatalf("%q: JSONL row is not one line: %q", text, j.Bytes())
		}
		var obj map[string]any
		if err := json.Unmarshal(j.Bytes(), &obj); err != nil {
			t.Fatalf("%q: JSON does not parse: %v", text, err)
		}
		if got := obj["marker"]; utf8.ValidString(text) && got != text {
			t.Fatalf("%q: JSON read back as %q", text, got)
		}
	})
}
