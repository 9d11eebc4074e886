package recordings

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/gputop-dev/gputop/recordings/format"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// streamAll reads a stream to its end: its samples, hint snapshots and
// descriptions in the order they came, and the error that ended it (nil
// for a clean io.EOF).
func streamAll(t testing.TB, r io.Reader) (*StreamReader, []StreamEvent, error) {
	t.Helper()
	sr, err := NewStreamReader(r, "test")
	if err != nil {
		return nil, nil, err
	}
	var evs []StreamEvent
	for range 1 << 20 {
		ev, err := sr.Next()
		if errors.Is(err, io.EOF) {
			return sr, evs, nil
		}
		if err != nil {
			if _, again := sr.Next(); again != err {
				t.Fatalf("Next after %v returned %v", err, again)
			}
			return sr, evs, err
		}
		evs = append(evs, ev)
	}
	t.Fatal("the stream does not end")
	return nil, nil, nil
}

func samplesOf(evs []StreamEvent) []timeline.Sample {
	var out []timeline.Sample
	for _, ev := range evs {
		if ev.Item == StreamSample {
			out = append(out, ev.Sample)
		}
	}
	return out
}

// TestStreamThroughPipe writes a recording into a pipe, sample by sample,
// and waits for the reader to return each sample before writing the next:
// every sample arrives whole as soon as it is flushed, with no later bytes
// needed, and so do the hint snapshots and descriptions with it, in
// order; the clean close ends the stream with io.EOF.
func TestStreamThroughPipe(t *testing.T) {
	ss := samples(700, 2) // past two segments of 5 minutes
	pr, pw := io.Pipe()
	got := make(chan StreamEvent, 16)
	readErr := make(chan error, 1)
	go func() {
		sr, err := NewStreamReader(pr, "pipe")
		if err != nil {
			readErr <- err
			pr.CloseWithError(err)
			return
		}
		if sr.Header().Version != "v0.1.0-test" || sr.Header().Info.Host != header(time.Second).Info.Host {
			t.Errorf("header %+v", sr.Header())
		}
		for {
			ev, err := sr.Next()
			if err != nil {
				readErr <- err
				return
			}
			got <- ev
		}
	}()
	w, err := newWriter(pw, "pipe", header(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	hints := []timeline.Hint{{ID: "gpu-idle", Severity: timeline.Warning, GPUs: []int{1}, Start: t0, End: t0.Add(time.Minute),
		Evidence: "GPU1 idle", Suggestion: "look", Confidence: 0.5}}
	grown := header(time.Second).Info
	grown.GPUs = append(grown.GPUs, timeline.GPUInfo{Index: 2, Name: "late GPU", UUID: "GPU-late"})
	wait := func(what string) StreamEvent {
		t.Helper()
		select {
		case ev := <-got:
			return ev
		case err := <-readErr:
			t.Fatalf("waiting for %s: %v", what, err)
		case <-time.After(10 * time.Second):
			t.Fatalf("%s did not arrive after its flush", what)
		}
		return StreamEvent{}
	}
	for i := range ss {
		if i == 400 {
			if err := w.WriteInfo(grown); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Write(&ss[i]); err != nil {
			t.Fatal(err)
		}
		if i == 400 {
			if ev := wait("the description"); ev.Item != StreamInfo || len(ev.Info.GPUs) != 3 {
				t.Fatalf("before sample 400: %+v, want the grown description", ev)
			}
		}
		if i == 100 {
			// A snapshot of sample 99, flushed with sample 100: it comes
			// before sample 100.
			ev := wait("the hints")
			if ev.Item != StreamHints || !ev.Hints.At.Equal(ss[99].At) || len(ev.Hints.Hints) != 1 || ev.Hints.Hints[0].Evidence != "GPU1 idle" {
				t.Fatalf("after sample 99: %+v, want its hints", ev)
			}
		}
		ev := wait("sample")
		if ev.Item != StreamSample {
			t.Fatalf("sample %d: got %+v", i, ev)
		}
		sameSample(t, i, ss[i], ev.Sample)
		if i == 99 {
			if err := w.WriteHints(ss[i].At, hints); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-readErr:
		if err != io.EOF {
			t.Fatalf("after the close: %v, want io.EOF", err)
		}
	case ev := <-got:
		t.Fatalf("after the close: %+v", ev)
	case <-time.After(10 * time.Second):
		t.Fatal("the close did not end the stream")
	}
}

// TestStreamRecorder streams through the Recorder, as gputop stream does:
// samples, hints as the judge says they change, and the verdict at Stop.
func TestStreamRecorder(t *testing.T) {
	ss := samples(40, 2)
	src := timelinetest.Play(header(time.Second).Info, ss)
	rec := NewRecorder(src, RecorderOptions{Version: "v-test", NewJudge: func(timeline.SourceInfo) HintJudge { return &everyTenth{} }})
	pr, pw := io.Pipe()
	if err := rec.StartWriter("stdout", pw); err != nil {
		t.Fatal(err)
	}
	if err := rec.StartWriter("stdout", pw); err == nil {
		t.Error("a second StartWriter while recording: no error")
	}
	type result struct {
		evs []StreamEvent
		err error
	}
	done := make(chan result, 1)
	go func() {
		_, evs, err := streamAll(t, pr)
		done <- result{evs, err}
	}()
	if err := rec.Run(t.Context(), 0); err != nil {
		t.Fatal(err)
	}
	sum, err := rec.Stop()
	if err != nil || sum.Samples != len(ss) || sum.Path != "stdout" || sum.Removed {
		t.Fatalf("Stop: %+v, %v", sum, err)
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	got := samplesOf(r.evs)
	if len(got) != len(ss) {
		t.Fatalf("%d samples, want %d", len(got), len(ss))
	}
	for i := range ss {
		sameSample(t, i, ss[i], got[i])
	}
	var snaps int
	for _, ev := range r.evs {
		if ev.Item == StreamHints {
			snaps++
		}
	}
	if snaps != 5 { // samples 0, 10, 20, 30 and the verdict
		t.Errorf("%d hint snapshots, want 5", snaps)
	}
}

// everyTenth says the hints changed at every tenth sample.
type everyTenth struct{ n int }

func (j *everyTenth) Add(*timeline.Sample)        { j.n++ }
func (j *everyTenth) SetInfo(timeline.SourceInfo) {}
func (j *everyTenth) Changed() ([]timeline.Hint, bool) {
	return nil, j.n%10 == 1
}
func (j *everyTenth) Verdict() []timeline.Hint { return nil }

// TestStreamCut cuts a stream at every byte of its last segment: the
// samples flushed whole before the cut come back, exactly, then one
// *StreamError that says it was cut (io.ErrUnexpectedEOF); the whole
// stream ends cleanly.
func TestStreamCut(t *testing.T) {
	ss := samples(45, 2)
	rec := writeMem(t, ss, 20*time.Second)
	last := rec.segments[len(rec.segments)-1]
	for cut := last - 3; cut <= int64(len(rec.data)); cut++ {
		_, evs, err := streamAll(t, iotest.HalfReader(bytes.NewReader(rec.data[:cut])))
		got := samplesOf(evs)
		want := 0
		for want < len(rec.ends) && rec.ends[want] <= cut {
			want++
		}
		if len(got) != want {
			t.Fatalf("cut at %d: %d samples, want %d", cut, len(got), want)
		}
		if cut == int64(len(rec.data)) {
			if err != nil {
				t.Fatalf("the whole stream: %v", err)
			}
			continue
		}
		var se *StreamError
		if !errors.As(err, &se) || !se.Cut || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("cut at %d: %v (%T), want a cut *StreamError", cut, err, err)
		}
		if want > 0 && !se.Good.Equal(got[want-1].At) {
			t.Fatalf("cut at %d: Good %v, want %v", cut, se.Good, got[want-1].At)
		}
	}
	_, evs, _ := streamAll(t, bytes.NewReader(rec.data[:rec.ends[len(ss)-1]]))
	for i, s := range samplesOf(evs) {
		sameSample(t, i, ss[i], s)
	}
}

// TestStreamDamaged changes every third byte after the header: the stream
// returns good samples only, exact, then one damaged *StreamError in one
// line (or, where the byte lay in the index after the last sample, ends).
func TestStreamDamaged(t *testing.T) {
	ss := samples(45, 2)
	rec := writeMem(t, ss, 20*time.Second)
	start := rec.segments[0]
	for at := start; at < int64(len(rec.data)); at += 3 {
		data := bytes.Clone(rec.data)
		data[at] ^= 0x5a
		_, evs, err := streamAll(t, bytes.NewReader(data))
		got := samplesOf(evs)
		for i := range got {
			sameSample(t, i, ss[i], got[i])
		}
		if err == nil {
			if len(got) != len(ss) {
				t.Fatalf("byte %d changed: %d samples and a clean end", at, len(got))
			}
			continue
		}
		var se *StreamError
		if !errors.As(err, &se) {
			t.Fatalf("byte %d changed: %v (%T), want a *StreamError", at, err, err)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Fatalf("byte %d changed: %q is not one line", at, err)
		}
	}
	// A changed record: its chunk's check says so.
	data := bytes.Clone(rec.data)
	data[rec.ends[30]-3] ^= 1
	if _, _, err := streamAll(t, bytes.NewReader(data)); err == nil || !strings.Contains(err.Error(), "stream damaged") || errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a changed block: %v", err)
	}
}

// TestStreamVersions refuses a stream of a newer major version, or older
// than streams, before any sample, naming both versions and the sender.
func TestStreamVersions(t *testing.T) {
	rec := writeMem(t, samples(3, 2), 5*time.Minute)
	at := format.SkippableHeader + len(format.FileMagic)
	for _, tc := range []struct {
		v    Version
		want string
	}{
		{Version{Major: 2, Minor: 0}, "gputop v0.1.0-test streams format 2.0, newer than this gputop reads (1.x); upgrade gputop here"},
		{Version{Major: 1, Minor: 3}, "gputop v0.1.0-test streams format 1.3; this gputop reads 1.4 to 1.x; upgrade gputop there"},
		{Version{Major: 0, Minor: 9}, "streams format 0.9"},
	} {
		data := bytes.Clone(rec.data)
		binary.LittleEndian.PutUint16(data[at:], tc.v.Major)
		binary.LittleEndian.PutUint16(data[at+2:], tc.v.Minor)
		_, err := NewStreamReader(bytes.NewReader(data), "node3")
		var ve *StreamVersionError
		if !errors.As(err, &ve) || ve.Found != tc.v || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("format %s: %v, want a *StreamVersionError saying %q", tc.v, err, tc.want)
		}
	}
	// A newer minor version is read: it only adds what a reader skips.
	data := bytes.Clone(rec.data)
	binary.LittleEndian.PutUint16(data[at+2:], format.FormatVersion.Minor+1)
	body := data[format.SkippableHeader : format.SkippableHeader+binary.LittleEndian.Uint32(data[4:])]
	binary.LittleEndian.PutUint32(body[len(body)-4:], crc32.Checksum(body[:len(body)-4], format.Castagnoli))
	if _, evs, err := streamAll(t, bytes.NewReader(data)); err != nil || len(samplesOf(evs)) != 3 {
		t.Errorf("a newer minor version: %d events, %v", len(evs), err)
	}
}

// TestStreamNotARecording: what a remote shell says instead of a stream
// (gputop missing, an older gputop without stream) comes back as one
// line quoting it.
func TestStreamNotARecording(t *testing.T) {
	for in, want := range map[string]string{
		"bash: line 1: gputop: command not found\n":      `node3: not a gputop recording (text: "bash: line 1: gputop: command not found")`,
		"gputop: unknown command \"stream\" (see gputop": `text: "gputop: unknown command \"stream\" (see gputop"`,
		"":             "node3: not a gputop recording (empty stream)",
		"\x00\x01\x02": "unknown format",
	} {
		_, err := NewStreamReader(strings.NewReader(in), "node3")
		var nr *NotRecordingError
		if !errors.As(err, &nr) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want a *NotRecordingError with %q", in, err, want)
		}
	}
	_, err := NewStreamReader(strings.NewReader("\x50\x2a\x4d\x18\x40\x00\x00\x00gputop-rec"), "node3")
	var se *StreamError
	if !errors.As(err, &se) || !se.Cut {
		t.Errorf("a header cut short: %v", err)
	}
}

// FuzzStreamReader feeds the stream reader any bytes, in pieces of any
// size: it must answer with events and a typed one-line error or io.EOF,
// and never panic or hang, nor grow the heap by more than maxHeapGrowth.
// Seeds: the golden recordings (testdata), which read as streams too,
// whole and cut; in testdata/fuzz/FuzzStreamReader the inputs a 90-second
// `go test -fuzz FuzzStreamReader` run found new paths with (867,222
// executions, no failure), and the hostile inputs of hostileSeeds, whole
// and a byte at a time (written by TestGolden -update).
func FuzzStreamReader(f *testing.F) {
	for _, name := range []string{"golden.gtr", "golden-1.3.gtr"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(0))
		f.Add(data[:len(data)*2/3], uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, chunking uint8) {
		bounded(t, "the stream reader", func() { fuzzStream(t, data, chunking) })
	})
}

// fuzzStream is FuzzStreamReader's reading of data.
func fuzzStream(t *testing.T, data []byte, chunking uint8) {
	var r io.Reader = bytes.NewReader(data)
	switch chunking % 3 {
	case 1:
		r = iotest.OneByteReader(r)
	case 2:
		r = iotest.HalfReader(r)
	}
	sr, err := NewStreamReader(r, "fuzz")
	if err != nil {
		var nr *NotRecordingError
		var ve *StreamVersionError
		var se *StreamError
		if !errors.As(err, &nr) && !errors.As(err, &ve) && !errors.As(err, &se) {
			t.Fatalf("NewStreamReader: untyped error %v (%T)", err, err)
		}
		oneLine(t, err)
		return
	}
	defer sr.Close()
	for range 1 << 22 { // more events than any seed gives
		_, err := sr.Next()
		if err == nil {
			continue
		}
		if !errors.Is(err, io.EOF) {
			var se *StreamError
			if !errors.As(err, &se) {
				t.Fatalf("untyped error %v (%T)", err, err)
			}
			oneLine(t, err)
		}
		return
	}
	t.Fatal("the stream does not end")
}
