package recordings

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

func TestCreateRefusesAnExistingFileWithoutForce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.gtr")
	if err := os.WriteFile(path, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Create(path, header(time.Second), false)
	// The file named, and no advice about a flag the caller may not have.
	if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "--force") {
		t.Fatalf("Create over an existing file: %v; want fs.ErrExist naming the file", err)
	}
	oneLine(t, err)
	if b, _ := os.ReadFile(path); string(b) != "precious" {
		t.Fatalf("the existing file was changed to %q", b)
	}
	w, err := Create(path, header(time.Second), true)
	if err != nil {
		t.Fatalf("Create with force: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Identify(path); err != nil {
		t.Errorf("the forced file is not a recording: %v", err)
	}
}

func TestCreateUnwritablePath(t *testing.T) {
	dir := t.TempDir()
	for _, path := range []string{
		filepath.Join(dir, "no", "such", "dir", "run.gtr"),
		dir, // a directory
	} {
		_, err := Create(path, header(time.Second), true)
		if err == nil || !strings.Contains(err.Error(), "cannot create recording") {
			t.Errorf("Create(%q) = %v; want a clear error", path, err)
			continue
		}
		oneLine(t, err)
	}
}

// A recording whose file is deleted under it stops with a message at the
// next flush, instead of writing on into a file no one can open.
func TestRemovedFileStopsTheRecording(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.gtr")
	w, err := Create(path, header(time.Second), false)
	if err != nil {
		t.Fatal(err)
	}
	ss := samples(3, 1)
	if err := w.Write(&ss[0]); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	err = w.Write(&ss[1])
	if err == nil || !strings.Contains(err.Error(), "removed") {
		t.Fatalf("Write after the file was removed: %v", err)
	}
	if again := w.Write(&ss[2]); again != err {
		t.Errorf("a later Write: %v; want the same error again", again)
	}
	if cerr := w.Close(); cerr != err {
		t.Errorf("Close: %v; want the same error", cerr)
	}
}

func TestWriterRefusesBadTimesAndUseAfterClose(t *testing.T) {
	var f memFile
	w, err := newWriter(&f, "mem.gtr", header(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []timeline.Sample{
		{},
		{At: time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC)},
		{At: t0, Markers: []timeline.Marker{{Text: "no time"}}},
	} {
		if err := w.Write(&s); err == nil {
			t.Errorf("Write(%v) accepted a time a recording cannot hold", s)
		}
	}
	ss := samples(2, 1)
	if err := w.Write(&ss[0]); err != nil {
		t.Fatalf("a good sample after refused ones: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	if err := w.Write(&ss[1]); err == nil {
		t.Error("Write after Close succeeded")
	}
	got, err := readMem(t, f.Bytes())
	if err != nil || len(got) != 1 {
		t.Fatalf("read back %d samples, %v; want 1", len(got), err)
	}
}

func TestEmptyRecording(t *testing.T) {
	var f memFile
	w, err := newWriter(&f, "mem.gtr", header(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := openMem(f.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if first, last := r.Span(); !first.IsZero() || !last.IsZero() {
		t.Errorf("Span() = %v, %v; want zero", first, last)
	}
	if _, err := r.Read(); !errors.Is(err, io.EOF) {
		t.Errorf("Read() = %v, want io.EOF", err)
	}
}

// A 10 Hz source is flushed once a second of sample time, not every sample.
func TestFlushEverySecondOfSampleTime(t *testing.T) {
	var f memFile
	w, err := newWriter(&f, "mem.gtr", header(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ss := samples(25, 1)
	flushes := 0
	for i := range ss {
		ss[i].At = t0.Add(time.Duration(i) * 100 * time.Millisecond)
		if err := w.Write(&ss[i]); err != nil {
			t.Fatal(err)
		}
		if !w.Pending() {
			flushes++
		}
	}
	if flushes != 2 {
		t.Errorf("%d flushes for 2.5 s of samples at 10 Hz; want 2 (samples 10 and 20)", flushes)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestReplay(t *testing.T) {
	ss := samples(20, 1)
	path := filepath.Join(t.TempDir(), "run.gtr")
	writeFile(t, path, header(time.Second), ss)
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	src := NewReplay(r)
	info := src.Info()
	if info.Kind != timeline.Replay || info.Recorded != timeline.Demo || info.Origin != path || info.Scenario != "training" {
		t.Errorf("Info() = kind %v, recorded %v, origin %q, scenario %q", info.Kind, info.Recorded, info.Origin, info.Scenario)
	}
	for i := range ss {
		s, err := src.Next(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		sameSample(t, i, ss[i], s)
	}
	for range 2 {
		if _, err := src.Next(t.Context()); !errors.Is(err, io.EOF) {
			t.Fatalf("at the end: %v, want io.EOF", err)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := src.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Next with a cancelled context: %v", err)
	}
}

func TestReplayOfTornFileWarnsOnce(t *testing.T) {
	ss := samples(20, 1)
	rec := writeMem(t, ss, time.Minute)
	r, err := openMem(rec.data[:rec.ends[9]+3])
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	src := NewReplay(r)
	for range 10 {
		if _, err := src.Next(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	_, err = src.Next(t.Context())
	wantDamaged(t, "replay of a torn file", err, ss[9].At)
	if _, err := src.Next(t.Context()); !errors.Is(err, io.EOF) {
		t.Errorf("after the warning: %v, want io.EOF", err)
	}
}

// A sample of 60,000 keys opens each segment with 1.3 MB of their
// definitions; its segment still goes on to hold the samples after it, as
// a narrower one does. A session of 64 hosts (36,736 keys) wrote a segment
// for every sample, a file four times as large.
func TestWideSamplesShareASegment(t *testing.T) {
	keys, kinds := make([]timeline.Key, 60_000), make([]timeline.Kind, 60_000)
	for i := range keys {
		keys[i] = timeline.Key{Name: timeline.GPUUtil, Device: timeline.GPUDevice(i)}
	}
	cols := timeline.NewColumns(keys, kinds)
	ss := make([]timeline.Sample, 10)
	for i := range ss {
		ss[i] = timeline.Sample{At: t0.Add(time.Duration(i) * time.Second), Columns: cols, Values: make([]float64, len(keys))}
		for k := range ss[i].Values {
			ss[i].Values[k] = float64((k + i) % 100)
		}
	}
	if rec := writeMem(t, ss, segmentSpan); len(rec.segments) != 1 {
		t.Errorf("10 samples of 60,000 keys in %d segments, want 1 (%d bytes)", len(rec.segments), len(rec.data))
	}
}
