package progress

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// lines cuts output as the job runner does: "\r" ends a line as "\n" does.
func lines(b []byte) [][]byte {
	return bytes.FieldsFunc(b, func(r rune) bool { return r == '\r' || r == '\n' })
}

// track parses every line of a recorded output, one line each step apart,
// and returns the readings and the points a Tracker keeps.
func track(t *testing.T, name string, step time.Duration) ([]Reading, []timeline.Progress) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	p, tr := New(nil), NewTracker()
	at := time.Unix(1_700_000_000, 0)
	var rs []Reading
	var kept []timeline.Progress
	for _, l := range lines(b) {
		at = at.Add(step)
		if r, ok := p.Parse(l); ok {
			rs = append(rs, r)
			kept = append(kept, tr.Add(at, r, "job")...)
		}
	}
	return rs, append(kept, tr.Flush()...)
}

func TestRecordedOutputs(t *testing.T) {
	cases := []struct {
		file     string
		readings int
		last     Reading // the last reading
		unit     string  // of the points kept
		done     float64 // the last point's Done
	}{
		{"tqdm.txt", 47, Reading{Count: 5, Total: 5, Rate: 0.4, Unit: "it"}, "it", 1000},
		{"tqdm_nested.txt", 66, Reading{Count: 1000, Total: 1000, Rate: 50, Unit: "it"}, "it", 3000},
		{"lightning.txt", 54, Reading{Count: 50, Total: 50, Rate: 100, Unit: "it"}, "it", 800},
		{"lightning_rich.txt", 11, Reading{Count: 1000, Total: 1000, Rate: 50, Unit: "it"}, "it", 1000},
		{"keras2.txt", 23, Reading{Count: 500, Total: 500, Rate: 1000.0 / 22, Unit: "step"}, "step", 1000},
		{"keras3.txt", 11, Reading{Count: 500, Total: 500, Rate: 1000.0 / 22, Unit: "step"}, "step", 500},
		{"hf_trainer.txt", 58, Reading{Count: NaN, Total: NaN, Rate: 79.8, Unit: "sample"}, "it", 500},
		{"generic.txt", 19, Reading{Count: NaN, Total: NaN, Rate: 6512, Unit: "token"}, "iter", 100},
	}
	for _, c := range cases {
		rs, kept := track(t, c.file, 100*time.Millisecond)
		if len(rs) != c.readings {
			t.Errorf("%s: %d readings, want %d", c.file, len(rs), c.readings)
		}
		if len(rs) > 0 && !same(rs[len(rs)-1], c.last) {
			t.Errorf("%s: last reading %+v, want %+v", c.file, rs[len(rs)-1], c.last)
		}
		if len(kept) == 0 {
			t.Errorf("%s: nothing kept", c.file)
			continue
		}
		last := kept[len(kept)-1]
		for _, k := range kept {
			if k.Unit != c.unit {
				t.Errorf("%s: kept a point in %q, want only %q: %+v", c.file, k.Unit, c.unit, k)
			}
		}
		if math.Abs(last.Done-c.done) > 1e-9 {
			t.Errorf("%s: done %v at the end, want %v", c.file, last.Done, c.done)
		}
		if len(kept) > len(rs)/2+2 {
			t.Errorf("%s: kept %d of %d readings; the tracker should keep few", c.file, len(kept), len(rs))
		}
	}
}
