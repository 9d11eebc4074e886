package recordings

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"testing"
	"time"
)

// FuzzReader feeds the reader any bytes: it must answer with samples (and
// hints) and a typed, one-line error, and never panic or hang. Its seed corpus is in
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
		HintsAt(r.Hints(), last)
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

// FuzzRecords feeds the record decoder any bytes behind a valid check, as
// if they had come out of a zstd frame intact: the reader's CRC gate keeps
// FuzzReader's random bytes from reaching it. Decoding must never panic
// or loop. Its seeds are the golden file's records.
func FuzzRecords(f *testing.F) {
	f.Fuzz(func(t *testing.T, records []byte) {
		data := appendRecord(append([]byte(nil), records...), recCheck,
			binary.LittleEndian.AppendUint32(nil, crc32.Checksum(records, castagnoli)))
		var d segmentDecoder
		d.reset(data)
		for range len(data) + 1 { // every sample takes at least a byte
			if _, ok, err := d.next(); !ok || err != nil {
				return
			}
		}
		t.Fatal("the decoder returned more samples than it had bytes")
	})
}
