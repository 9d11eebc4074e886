package recordings

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings/format"
	"github.com/gputop-dev/gputop/timeline"
)

// FuzzReader feeds the reader any bytes: it must answer with samples (and
// hints) and a typed, one-line error, and never panic or hang, nor grow
// the heap by more than maxHeapGrowth. Its seed corpus is in
// testdata/fuzz/FuzzReader (written by TestGolden -update: the golden
// files, damaged, and the hostile inputs of hostileSeeds), so plain go
// test runs it; go test -fuzz FuzzReader ./recordings/ searches further.
func FuzzReader(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		bounded(t, "the reader", func() { fuzzRead(t, data) })
	})
}

// fuzzRead is FuzzReader's reading of data.
func fuzzRead(t *testing.T, data []byte) {
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
		data := format.AppendRecord(append([]byte(nil), records...), format.RecCheck,
			binary.LittleEndian.AppendUint32(nil, crc32.Checksum(records, format.Castagnoli)))
		var d format.Decoder
		d.Reset(data)
		for range len(data) + 1 { // every sample takes at least a byte
			if _, ok, err := d.Next(); !ok || err != nil {
				return
			}
		}
		t.Fatal("the decoder returned more samples than it had bytes")
	})
}

// bitFlipFile is the recording FuzzBitFlips damages: 60 samples at 1 Hz in
// six segments, with hint snapshots and info records, and where each
// segment's bytes are.
type bitFlipFile struct {
	hintRecording
	samples []timeline.Sample
	// segEnd[i] is where segment i's bytes (header and zstd frame) end;
	// segSamples[i] are the samples it holds.
	segEnd     []int64
	segSamples [][]int
}

func newBitFlipFile(t testing.TB) bitFlipFile {
	ss := samples(60, 1)
	info1, info2 := grownInfo(1), grownInfo(2)
	plan := []plannedHints{
		{after: 3, hints: hintSet(3, 2)},
		{after: 7, info: &info1},
		{after: 14, hints: hintSet(14, 1)},
		{after: 33, hints: nil},
		{after: 36, info: &info2},
		{after: 47, hints: hintSet(47, 3)},
	}
	f := bitFlipFile{hintRecording: writeWithHints(t, ss, plan, 10*time.Second), samples: ss}
	r, err := openMem(f.data)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i, start := range f.segments {
		end := r.dataEnd
		if i+1 < len(f.segments) {
			end = f.segments[i+1]
		}
		var held []int
		for j, e := range f.ends {
			if e > start && e <= end {
				held = append(held, j)
			}
		}
		f.segEnd = append(f.segEnd, end)
		f.segSamples = append(f.segSamples, held)
	}
	return f
}

// FuzzBitFlips flips bits anywhere in a recording, and cuts it if cut is
// not 0 (to cut-1 bytes, modulo its length + 1), then reads it all (see
// checkFlipped). flips holds a bit position in each three bytes. Its seed
// corpus is in testdata/fuzz/FuzzBitFlips (written by TestGolden
// -update); TestBytesFlipped tries every few bytes of the file in turn.
func FuzzBitFlips(f *testing.F) {
	file := newBitFlipFile(f)
	f.Fuzz(func(t *testing.T, flips []byte, cut uint32) {
		data := append([]byte(nil), file.data...)
		if cut > 0 {
			data = data[:int64(cut-1)%int64(len(data)+1)]
		}
		if len(data) == 0 {
			return
		}
		var touched []int64
		for i := 0; i+3 <= len(flips) && i < 3*32; i += 3 {
			bit := (int64(flips[i]) | int64(flips[i+1])<<8 | int64(flips[i+2])<<16) % int64(8*len(data))
			data[bit/8] ^= 1 << (bit % 8)
			touched = append(touched, bit/8)
		}
		checkFlipped(t, file, data, touched)
	})
}

// TestBytesFlipped flips one bit in each byte of the file's framing
// (segment headers, the start of each zstd frame with its first block
// header, the index and trailer) and of every few other bytes, in turn, in
// the file as closed and as never closed.
func TestBytesFlipped(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the file once per byte changed")
	}
	file := newBitFlipFile(t)
	var at []int
	for i := 0; i < len(file.data); i += 101 {
		at = append(at, i)
	}
	for _, seg := range file.segments {
		for i := range format.SegmentFrame + 12 {
			at = append(at, int(seg)+i)
		}
	}
	for i := file.segEnd[len(file.segEnd)-1]; i < int64(len(file.data)); i++ {
		at = append(at, int(i))
	}
	for _, data := range [][]byte{file.data, file.data[:file.segEnd[len(file.segEnd)-1]]} {
		for _, i := range at {
			if i >= len(data) {
				continue
			}
			flipped := append([]byte(nil), data...)
			flipped[i] ^= 1 << (i % 8)
			checkFlipped(t, file, flipped, []int64{int64(i)})
		}
	}
}

// checkFlipped reads file's bytes after damage (data, changed at the
// offsets touched, perhaps cut short): every sample of every segment whose
// bytes were left alone must be read, exactly as written; no sample read
// may differ from the one written at its time; nothing may panic or loop.
// Damage in the file's header may make Open fail.
func checkFlipped(t *testing.T, file bitFlipFile, data []byte, touched []int64) {
	t.Helper()
	r, err := openMem(data)
	if err != nil {
		return
	}
	defer r.Close()
	r.Span()
	read := make(map[int]bool)
	var last time.Time
	for n := 0; ; n++ {
		if n > len(file.samples) {
			t.Fatal("read more samples than were written")
		}
		s, err := r.Read()
		if err != nil {
			var de *DamagedError
			if !errors.Is(err, io.EOF) && !errors.As(err, &de) {
				t.Fatalf("after %d samples: untyped error %v (%T)", n, err, err)
			}
			oneLine(t, err)
			break
		}
		i := sort.Search(len(file.samples), func(i int) bool { return !file.samples[i].At.Before(s.At) })
		if i == len(file.samples) || !file.samples[i].At.Equal(s.At) {
			t.Fatalf("read a sample at %v, which was never written", s.At)
		}
		if !s.At.After(last) {
			t.Fatalf("read a sample at %v after one at %v", s.At, last)
		}
		sameSample(t, i, file.samples[i], s)
		read[i], last = true, s.At
	}
	for seg, start := range file.segments {
		end := file.segEnd[seg]
		if end > int64(len(data)) || slices.ContainsFunc(touched, func(at int64) bool { return at >= start && at < end }) {
			continue
		}
		for _, i := range file.segSamples[seg] {
			if !read[i] {
				t.Fatalf("damage at %v: sample %d of segment %d, whose bytes were left alone, was not read (gaps %v)",
					touched, i, seg, r.Gaps())
			}
		}
	}
	HintsAt(r.Hints(), last)
	if in := r.Info(); !sameInfo(in, header(time.Second).Info) && !sameInfo(in, grownInfo(1)) && !sameInfo(in, grownInfo(2)) {
		t.Fatalf("read a description that was never written: %+v", in)
	}
	if err := r.SeekTime(file.samples[25].At); err != nil {
		t.Fatal(err)
	}
	if _, err := readUpTo(r, 10); err != nil && !errors.Is(err, io.EOF) {
		var de *DamagedError
		if !errors.As(err, &de) {
			t.Fatalf("after a seek: untyped error %v (%T)", err, err)
		}
	}
}
