package recordings

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings/format"
)

// fullRead is what a recording held in memory gave, read to its end: how
// many samples, its hint snapshots, and the error it ended with (nil for a
// clean end).
type fullRead struct {
	n     int
	hints []HintSnapshot
	err   error
}

// readWhole reads data, file's bytes perhaps damaged, to its end, and
// checks each sample against the one written; and that the description at
// the end is the last one written.
func readWhole(t *testing.T, file bitFlipFile, data []byte) fullRead {
	t.Helper()
	r, err := openMem(data)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer r.Close()
	var out fullRead
	for {
		s, err := r.Read()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				out.err = err
			}
			break
		}
		if out.n >= len(file.samples) {
			t.Fatal("read more samples than were written")
		}
		sameSample(t, out.n, file.samples[out.n], s)
		out.n++
	}
	out.hints = r.Hints()
	if in := r.Info(); !sameInfo(in, grownInfo(2)) {
		t.Errorf("the description at the end is %+v, want the last one written", in)
	}
	return out
}

// One damaged byte anywhere in the header frame costs nothing: the header
// is read from its copy in the first segment, every sample, hint snapshot
// and description is read, and the end says the header was damaged; in a
// file closed cleanly and in one that was not.
func TestHeaderDamagedAtEveryByte(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the file once per byte changed")
	}
	file := newBitFlipFile(t)
	closed, unclosed := file.data, file.data[:file.segEnd[len(file.segEnd)-1]]
	for name, data := range map[string][]byte{"closed": closed, "not closed": unclosed} {
		whole := readWhole(t, file, data)
		for i := range file.segments[0] {
			damaged := append([]byte(nil), data...)
			damaged[i] ^= 0xff
			got := readWhole(t, file, damaged)
			if got.n != len(file.samples) {
				t.Fatalf("%s, byte %d of the header changed: read %d samples of %d (%v)", name, i, got.n, len(file.samples), got.err)
			}
			sameSnapshots(t, name, whole.hints, got.hints)
			var de *DamagedError
			if !errors.As(got.err, &de) || de.Header == "" || de.Reason != reasonOf(whole.err) {
				t.Fatalf("%s, byte %d of the header changed: ended with %v, want the header damaged and then %v", name, i, got.err, whole.err)
			}
			oneLine(t, got.err)
		}
	}
}

func reasonOf(err error) string {
	var de *DamagedError
	if errors.As(err, &de) {
		return de.Reason
	}
	return ""
}

// With the header damaged and the first segment's copy too, the second
// segment's copy is read, and the first segment is lost, as damage there
// would lose it anyway.
func TestHeaderAndFirstCopyDamaged(t *testing.T) {
	file := newBitFlipFile(t)
	data := append([]byte(nil), file.data...)
	data[format.SkippableHeader+len(format.FileMagic)+10] ^= 0xff
	data[file.segments[0]+format.SegmentFrame+40] ^= 0xff // inside the first chunk, which holds the copy
	r, err := openMem(data)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer r.Close()
	got, err := drain(r)
	want := len(file.samples) - len(file.segSamples[0])
	var de *DamagedError
	if len(got) != want || !errors.As(err, &de) || de.Header == "" || len(de.Gaps) != 1 {
		t.Fatalf("read %d samples, want %d, and %v", len(got), want, err)
	}
	if !strings.Contains(err.Error(), "header damaged (checksum mismatch), its copy read instead; unreadable before") {
		t.Errorf("message %q", err)
	}
}

// A file written before the header had copies, whose header is damaged,
// is refused as before, in one line.
func TestHeaderDamagedWithoutCopies(t *testing.T) {
	var f memFile
	w, err := newWriter(&f, "old.gtr", header(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	w.headerCopy = nil
	ss := samples(3, 1)
	for i := range ss {
		if err := w.Write(&ss[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := f.Bytes()
	data[format.SkippableHeader+len(format.FileMagic)+10] ^= 0xff
	_, err = openMem(data)
	var de *DamagedError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "header damaged (checksum mismatch)") {
		t.Fatalf("Open: %v", err)
	}
	oneLine(t, err)
}

// A flipped bit in the version is damage, caught by the header's CRC, not
// a recording from the future.
func TestDamagedVersionIsNotNewer(t *testing.T) {
	file := newBitFlipFile(t)
	data := append([]byte(nil), file.data...)
	data[format.SkippableHeader+len(format.FileMagic)+1] ^= 0x01 // the major version's high byte
	r, err := openMem(data)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer r.Close()
	if v := r.Header().FormatVersion; v != format.FormatVersion {
		t.Errorf("version %v, want %v from the copy", v, format.FormatVersion)
	}
}
