package recordings

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/gputop-dev/gputop/recordings/format"
)

// oneLine fails if err's message is not one line, or is empty.
func oneLine(t *testing.T, err error) {
	t.Helper()
	if msg := err.Error(); msg == "" || strings.Contains(msg, "\n") {
		t.Errorf("error message %q is not one line", msg)
	}
}

func TestOpenBadInput(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	files := map[string][]byte{
		"empty.gtr":  {},
		"smi.csv":    []byte("timestamp, name, utilization.gpu [%]\n2024/01/01 00:00:00.000, NVIDIA H100, 97 %\n"),
		"random.bin": random,
		"zstd.zst":   zstdOf(t, []byte("hello")),
		"png.png":    []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name   string
		check  func(error) bool
		phrase string
	}{
		{"missing.gtr", func(err error) bool { return errors.Is(err, fs.ErrNotExist) }, "no such file"},
		{"empty.gtr", isNotRecording, "empty file"},
		{"smi.csv", isNotRecording, "gputop import"},
		{"random.bin", isNotRecording, "not a gputop recording"},
		{"zstd.zst", isNotRecording, "not a gputop recording"},
		{"png.png", isNotRecording, "not a gputop recording"},
		{".", isNotRecording, "directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name)
			r, err := Open(path)
			if err == nil {
				r.Close()
				t.Fatal("Open succeeded")
			}
			if !c.check(err) || !strings.Contains(err.Error(), c.phrase) {
				t.Errorf("Open: %v (%T); want one saying %q", err, err, c.phrase)
			}
			oneLine(t, err)
			if _, err := Identify(path); !c.check(err) {
				t.Errorf("Identify: %v (%T)", err, err)
			}
		})
	}
}

func isNotRecording(err error) bool {
	var e *NotRecordingError
	return errors.As(err, &e)
}

func zstdOf(t *testing.T, b []byte) []byte {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(b, nil)
}

// withVersion rewrites a recording's header to claim another version.
func withVersion(data []byte, v Version) []byte {
	out := append([]byte(nil), data...)
	n := int(binary.LittleEndian.Uint32(out[4:]))
	content := out[format.SkippableHeader : format.SkippableHeader+n]
	binary.LittleEndian.PutUint16(content[len(format.FileMagic):], v.Major)
	binary.LittleEndian.PutUint16(content[len(format.FileMagic)+2:], v.Minor)
	binary.LittleEndian.PutUint32(content[n-4:], crc32.Checksum(content[:n-4], format.Castagnoli))
	return out
}

func TestNewerMajorVersionIsRefused(t *testing.T) {
	rec := writeMem(t, samples(3, 1), time.Minute)
	path := filepath.Join(t.TempDir(), "future.gtr")
	if err := os.WriteFile(path, withVersion(rec.data, Version{Major: 2, Minor: 3}), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path)
	var ve *VersionError
	if !errors.As(err, &ve) || ve.Found != (Version{Major: 2, Minor: 3}) {
		t.Fatalf("Open: %v; want a *VersionError for 2.3", err)
	}
	oneLine(t, err)
	if !strings.Contains(err.Error(), "2.3 is newer") || !strings.Contains(err.Error(), "upgrade gputop") {
		t.Errorf("message %q does not say what to do", err)
	}
	v, err := Identify(path)
	if !errors.As(err, &ve) || v != (Version{Major: 2, Minor: 3}) {
		t.Errorf("Identify = %v, %v; want 2.3 and a *VersionError", v, err)
	}
}

// A newer minor version may add record types and frame types: this reader
// skips what it does not know and reads the rest.
func TestNewerMinorVersionSkipsUnknownRecordsAndFrames(t *testing.T) {
	ss := samples(4, 1)
	var e format.Encoder
	e.Reset()
	var chunk []byte
	for i := range ss {
		chunk = format.AppendRecord(chunk, 0x42, []byte("a record from the future"))
		chunk = format.AppendRecord(chunk, 10, []byte{1, 2, 3}) // 9 was unknown until 1.2
		chunk = e.AppendSample(chunk, &ss[i])
	}
	chunk = format.AppendRecord(chunk, format.RecCheck, binary.LittleEndian.AppendUint32(nil, crc32.Checksum(chunk, format.Castagnoli)))

	head, err := format.AppendHeaderFrame(nil, header(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	data := withVersion(head, Version{Major: format.FormatVersion.Major, Minor: format.FormatVersion.Minor + 1})
	data = format.AppendSkippable(data, 0xA, []byte("a frame from the future"))
	seg := int64(len(data))
	data = format.AppendSegmentHeader(data, ss[0].At.UnixNano(), 0)
	data = append(data, zstdOf(t, chunk)...)
	data = format.AppendSkippable(data, 0xB, []byte("another"))
	data = format.AppendIndex(data, format.Index{Segments: []format.SegmentRef{{Offset: seg, First: ss[0].At.UnixNano()}}, Last: ss[3].At.UnixNano(), Samples: 4}, int64(len(data)))

	for name, file := range map[string][]byte{"with index": data, "scanned": data[:len(data)-format.TrailerFrame]} {
		got, err := readMem(t, file)
		if len(got) != len(ss) {
			t.Fatalf("%s: read %d samples (%v), want %d", name, len(got), err, len(ss))
		}
		for i := range ss {
			sameSample(t, i, ss[i], got[i])
		}
		if name == "with index" && err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
