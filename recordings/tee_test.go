package recordings

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// listSource hands out samples from a list as fast as asked, then io.EOF.
type listSource struct {
	mu      sync.Mutex
	samples []timeline.Sample
	marks   []string
}

func (s *listSource) Next(ctx context.Context) (timeline.Sample, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.samples) == 0 {
		return timeline.Sample{}, errors.New("no more samples")
	}
	smp := s.samples[0]
	s.samples = s.samples[1:]
	return smp, nil
}

func (s *listSource) Info() timeline.SourceInfo { return synthInfo(1, time.Second) }

func (s *listSource) Mark(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.marks = append(s.marks, text)
}

// stuckFile takes the header, then blocks every write until released.
type stuckFile struct {
	memFile
	armed   atomic.Bool
	release chan struct{}
}

func (f *stuckFile) Write(p []byte) (int, error) {
	if f.armed.Load() {
		<-f.release
	}
	return f.memFile.Write(p)
}

// stop stops a Tee when a test ends, however it ends: a bubble must not
// end with the writer goroutine still running.
func stop(t *testing.T, tee *Tee) {
	if err := tee.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
}

// A disk that never answers does not delay Next by a moment: the samples
// it cannot take are dropped from the recording and counted.
func TestTeeStuckDiskDoesNotDelayNext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ss := samples(200, 1)
		f := &stuckFile{release: make(chan struct{})}
		w, err := newWriter(f, "stuck.gtr", header(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		f.armed.Store(true)
		tee := NewTee(&listSource{samples: ss}, w, func(err error) { t.Errorf("onError(%v)", err) })
		var once sync.Once
		unstick := func() { once.Do(func() { close(f.release) }) }
		defer stop(t, tee)
		defer unstick()     // runs first: a failed test must not leave the writer stuck
		start := time.Now() // the bubble's clock: it moves only if Next waits
		for i := range ss {
			s, err := tee.Next(t.Context())
			if err != nil || !s.At.Equal(ss[i].At) {
				t.Fatalf("Next %d = %v, %v", i, s.At, err)
			}
			if i == 0 {
				synctest.Wait() // the writer takes the first sample and sticks in Write
			}
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("200 calls of Next took %v with the disk stuck; want no time at all", waited)
		}
		synctest.Wait()
		// One sample is in the stuck Write, teeQueue wait, the rest are dropped.
		if got, want := tee.Dropped(), int64(len(ss)-1-teeQueue); got != want {
			t.Errorf("Dropped() = %d, want %d", got, want)
		}
		unstick()
		if err := tee.Stop(); err != nil {
			t.Fatal(err)
		}
		got, err := readMem(t, f.Bytes())
		if err != nil || len(got) != 1+teeQueue {
			t.Fatalf("the recording holds %d samples (%v), want %d", len(got), err, 1+teeQueue)
		}
	})
}

// fullFile accepts limit bytes, then fails as a full disk does.
type fullFile struct {
	memFile
	limit int
}

func (f *fullFile) Write(p []byte) (int, error) {
	room := f.limit - f.Len()
	if room >= len(p) {
		return f.memFile.Write(p)
	}
	n, _ := f.memFile.Write(p[:max(room, 0)]) // a bytes.Buffer write never fails
	return n, syscall.ENOSPC
}

// A full disk stops the recording once, with one message; samples keep
// coming through, and what was written before stays readable.
func TestTeeWriteErrorStopsRecordingOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ss := samples(120, 1)
		f := &fullFile{limit: 3000}
		w, err := newWriter(f, "full.gtr", header(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		var errs []error
		tee := NewTee(&listSource{samples: ss}, w, func(err error) { errs = append(errs, err) })
		defer stop(t, tee)
		for i := range ss {
			s, err := tee.Next(t.Context())
			if err != nil || !s.At.Equal(ss[i].At) {
				t.Fatalf("Next %d = %v, %v", i, s.At, err)
			}
			synctest.Wait() // let the writer keep up, so nothing is dropped for being slow
		}
		if err := tee.Stop(); err != nil {
			t.Errorf("Stop() = %v; the failure was reported already", err)
		}
		if len(errs) != 1 || !errors.Is(errs[0], syscall.ENOSPC) {
			t.Fatalf("onError got %v; want one ENOSPC", errs)
		}
		oneLine(t, errs[0])
		if !strings.Contains(errs[0].Error(), "full.gtr stopped") {
			t.Errorf("message %q does not say which recording stopped", errs[0])
		}
		got, err := readMem(t, f.Bytes())
		if len(got) == 0 || len(got) >= len(ss) {
			t.Fatalf("read back %d samples of %d", len(got), len(ss))
		}
		for i := range got {
			sameSample(t, i, ss[i], got[i])
		}
		wantDamaged(t, "after a full disk", err, got[len(got)-1].At)
	})
}

// lockedFile is a memFile a test may look at while the writer goroutine
// writes to it.
type lockedFile struct {
	mu sync.Mutex
	memFile
}

func (f *lockedFile) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.memFile.Write(p)
}

func (f *lockedFile) snapshot() []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]byte(nil), f.Bytes()...)
}

// A source that stops producing (a hung probe) still has its last samples
// on disk within a second of wall time, not only when the next comes.
func TestTeeFlushesWhenTheSourceStalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ss := samples(3, 1)
		for i := range ss {
			ss[i].At = t0.Add(time.Duration(i) * 100 * time.Millisecond) // 10 Hz: no flush by sample time yet
		}
		var f lockedFile
		h := header(100 * time.Millisecond)
		w, err := newWriter(&f, "stall.gtr", h)
		if err != nil {
			t.Fatal(err)
		}
		tee := NewTee(&listSource{samples: ss}, w, func(err error) { t.Errorf("onError(%v)", err) })
		defer stop(t, tee)
		for range ss {
			if _, err := tee.Next(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		if got, _ := readMem(t, f.snapshot()); len(got) != 0 {
			t.Fatalf("before a second passed: %d samples on disk, want none yet", len(got))
		}
		time.Sleep(flushEvery) // the bubble's fake clock: no real waiting
		synctest.Wait()
		if got, _ := readMem(t, f.snapshot()); len(got) != len(ss) {
			t.Fatalf("a second later: %d samples on disk, want %d", len(got), len(ss))
		}
		if err := tee.Stop(); err != nil {
			t.Fatal(err)
		}
	})
}

func TestTeeStopClosesAndMarksPassThrough(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ss := samples(10, 1)
		src := &listSource{samples: ss}
		var f memFile
		w, err := newWriter(&f, "stop.gtr", header(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		tee := NewTee(src, w, func(err error) { t.Errorf("onError(%v)", err) })
		defer stop(t, tee)
		tee.Mark("epoch 2")
		if len(src.marks) != 1 || src.marks[0] != "epoch 2" {
			t.Errorf("source got marks %q", src.marks)
		}
		if tee.Info().Host != src.Info().Host {
			t.Errorf("Info() is not the source's")
		}
		for range 5 {
			if _, err := tee.Next(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		if err := tee.Stop(); err != nil {
			t.Fatal(err)
		}
		if err := tee.Stop(); err != nil {
			t.Fatalf("a second Stop: %v", err)
		}
		if _, err := tee.Next(t.Context()); err != nil {
			t.Fatalf("Next after Stop: %v", err)
		}
		got, err := readMem(t, f.Bytes())
		if err != nil || len(got) != 5 {
			t.Fatalf("after Stop the file holds %d samples (%v), want 5 and a clean end", len(got), err)
		}
	})
}

// Hint snapshots go through the Tee's queue: WriteHints never waits for a
// stuck disk, drops what the queue cannot hold and counts it.
func TestTeeHintsDoNotWaitForAStuckDisk(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ss := samples(1, 1)
		f := &stuckFile{release: make(chan struct{})}
		w, err := newWriter(f, "stuck.gtr", header(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		f.armed.Store(true)
		tee := NewTee(&listSource{samples: ss}, w, func(err error) { t.Errorf("onError(%v)", err) })
		var once sync.Once
		unstick := func() { once.Do(func() { close(f.release) }) }
		defer stop(t, tee)
		defer unstick()
		if _, err := tee.Next(t.Context()); err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // the writer takes the sample and sticks in Write
		start := time.Now()
		const calls = 200
		for i := range calls {
			if err := tee.WriteHints(hintSet(i, 2)); err != nil {
				t.Fatal(err)
			}
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("%d calls of WriteHints took %v with the disk stuck; want no time at all", calls, waited)
		}
		if got, want := tee.DroppedHints(), int64(calls-teeQueue); got != want {
			t.Errorf("DroppedHints() = %d, want %d", got, want)
		}
		if tee.Dropped() != 0 {
			t.Errorf("Dropped() = %d: hints counted as samples", tee.Dropped())
		}
		unstick()
		if err := tee.Stop(); err != nil {
			t.Fatal(err)
		}
		r, err := openMem(f.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if got, err := drain(r); err != nil || len(got) != 1 {
			t.Fatalf("the recording holds %d samples (%v), want 1", len(got), err)
		}
		var want []HintSnapshot
		for i := range teeQueue {
			want = append(want, HintSnapshot{At: ss[0].At, Hints: hintSet(i, 2)})
		}
		sameSnapshots(t, "the queued snapshots", want, r.Hints())
	})
}

// Each snapshot is stamped with the last sample queued before it; one
// queued before any sample, with the first. The Tee keeps its own copy,
// and refuses hints the format cannot keep.
func TestTeeHintsStampedWithTheirSample(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ss := samples(4, 1)
		var f memFile
		w, err := newWriter(&f, "hints.gtr", header(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		tee := NewTee(&listSource{samples: ss}, w, func(err error) { t.Errorf("onError(%v)", err) })
		defer stop(t, tee)
		shown := hintSet(1, 2)
		if err := tee.WriteHints(shown); err != nil {
			t.Fatal(err)
		}
		shown[0].Evidence, shown[1].GPUs[0] = "changed by the caller", 99 // the Tee copied them
		want := []HintSnapshot{{At: ss[0].At, Hints: hintSet(1, 2)}}
		for i := range ss {
			if _, err := tee.Next(t.Context()); err != nil {
				t.Fatal(err)
			}
			if i == 1 || i == 2 {
				if err := tee.WriteHints(hintSet(i+10, i)); err != nil {
					t.Fatal(err)
				}
				want = append(want, HintSnapshot{At: ss[i].At, Hints: hintSet(i+10, i)})
			}
		}
		bad := hintSet(5, 1)
		bad[0].Confidence = math.NaN()
		if err := tee.WriteHints(bad); err == nil {
			t.Error("WriteHints took a NaN confidence")
		}
		if err := tee.Stop(); err != nil {
			t.Fatal(err)
		}
		r, err := openMem(f.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if got, err := drain(r); err != nil || len(got) != len(ss) {
			t.Fatalf("the recording holds %d samples (%v), want %d", len(got), err, len(ss))
		}
		sameSnapshots(t, "through the Tee", want, r.Hints())
	})
}
