package progress

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzParse feeds the parser and the tracker any bytes: they never panic,
// every number that comes out is finite, non-negative and at most
// MaxValue (or NaN: not said), and the work done never goes backwards.
// The committed corpus (testdata/fuzz/FuzzParse) holds a line of each
// format.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txt")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for i, l := range lines(b) {
			if i < 3 {
				f.Add(l)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, tr := New(nil), NewTracker()
		at := time.Unix(0, 0)
		lastDone := map[string]float64{}
		for _, l := range lines(b) {
			r, ok := p.Parse(l)
			if !ok {
				continue
			}
			for _, v := range []float64{r.Count, r.Total, r.Rate} {
				if !math.IsNaN(v) && !valid(v) {
					t.Fatalf("Parse(%q) = %+v: a number out of bounds", l, r)
				}
			}
			if r.Unit == "" {
				t.Fatalf("Parse(%q) = %+v: no unit", l, r)
			}
			at = at.Add(time.Second)
			for _, k := range tr.Add(at, r, "job") {
				if k.Done < lastDone[k.Unit] {
					t.Fatalf("done went back from %v to %v at %q", lastDone[k.Unit], k.Done, l)
				}
				if !math.IsNaN(k.Done) {
					lastDone[k.Unit] = k.Done
				}
			}
		}
	})
}

// BenchmarkParse parses the recorded outputs' lines, a mix of every
// format and the log lines between them, and reports the time per line.
func BenchmarkParse(b *testing.B) {
	files, _ := filepath.Glob("testdata/*.txt")
	var all [][]byte
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			b.Fatal(err)
		}
		all = append(all, lines(data)...)
	}
	p := New(nil)
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		for _, l := range all {
			p.Parse(l)
		}
		n += len(all)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/line")
}

// BenchmarkTrack is BenchmarkParse with the Tracker behind it, as a job's
// output goes.
func BenchmarkTrack(b *testing.B) {
	_, text := barLines(60, 50, 25)
	var ls [][]byte
	for _, l := range text {
		ls = append(ls, []byte(l))
	}
	p, tr := New(nil), NewTracker()
	at := time.Unix(0, 0)
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		for _, l := range ls {
			at = at.Add(100 * time.Millisecond)
			if r, ok := p.Parse(l); ok {
				tr.Add(at, r, "job")
			}
		}
		n += len(ls)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/line")
}
