package recordings

import (
	"errors"
	"io"
	"testing"
	"time"
)

// FuzzReader feeds the reader any bytes: it must answer with samples and a
// typed, one-line error, and never panic or hang. Its seed corpus is in
// testdata/fuzz/FuzzReader (written by TestGolden -update), so plain go
// test runs it; go test -fuzz FuzzReader ./recordings/ searches further.
func FuzzReader(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := openMem(data)
		if err != nil {
			var nr *NotRecordingError
			var ve *VersionError
			var de *DamagedError
			if !errors.As(err, &nr) && !errors.As(err, &ve) && !errors.As(err, &de) {
				t.Fatalf("Open: untyped error %v (%T)", err, err)
			}
			oneLine(t, err)
			return
		}
		defer r.Close()
		first, last := r.Span()
		n, err := readUpTo(r, 1<<20)
		if err != nil && !errors.Is(err, io.EOF) {
			var de *DamagedError
			if !errors.As(err, &de) {
				t.Fatalf("after %d samples: untyped error %v (%T)", n, err, err)
			}
			oneLine(t, err)
		}
		if err := r.SeekTime(first.Add(last.Sub(first) / 2)); err != nil {
			t.Fatal(err)
		}
		if _, err := readUpTo(r, 10); err != nil && !errors.Is(err, io.EOF) {
			var de *DamagedError
			if !errors.As(err, &de) {
				t.Fatalf("after a seek: untyped error %v (%T)", err, err)
			}
		}
		if err := r.SeekTime(time.Time{}); err != nil {
			t.Fatal(err)
		}
	})
}

// readUpTo reads at most max samples and returns how many, and the error
// that stopped it.
func readUpTo(r *Reader, max int) (int, error) {
	for n := range max {
		if _, err := r.Read(); err != nil {
			return n, err
		}
	}
	return max, nil
}
