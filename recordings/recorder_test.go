package recordings

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gputop-dev/gputop/recordings/recordingstest"
	"github.com/gputop-dev/gputop/timeline"
)

// scriptSource hands out samples from a list as fast as asked, then
// io.EOF; its description is what info says after n samples were taken.
type scriptSource struct {
	mu      sync.Mutex
	samples []timeline.Sample
	taken   int
	info    func(taken int) timeline.SourceInfo
	marks   []string
	// block makes Next wait for ctx once the list is used up, as a live
	// source waits for its next tick.
	block bool
}

func (s *scriptSource) Next(ctx context.Context) (timeline.Sample, error) {
	s.mu.Lock()
	if s.taken == len(s.samples) {
		s.mu.Unlock()
		if s.block {
			<-ctx.Done()
			return timeline.Sample{}, ctx.Err()
		}
		return timeline.Sample{}, io.EOF
	}
	defer s.mu.Unlock()
	s.taken++
	return s.samples[s.taken-1], nil
}

func (s *scriptSource) Info() timeline.SourceInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.info == nil {
		return recordingstest.Info(1, time.Second)
	}
	return s.info(s.taken)
}

func (s *scriptSource) Mark(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.marks = append(s.marks, text)
}

func (s *scriptSource) markCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.marks)
}

func (s *scriptSource) marksCopy() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.marks)
}

func (s *scriptSource) nexts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.taken
}

// memRecorder is a Recorder whose files are in memory: file hands out
// what each Start gets.
func memRecorder(src timeline.Source, opts RecorderOptions, file func() io.WriteCloser) *Recorder {
	opts.create = func(string, bool) (io.WriteCloser, error) { return file(), nil }
	return NewRecorder(src, opts)
}

// pull takes n samples through r, failing the test on an error.
func pull(t *testing.T, r *Recorder, n int) {
	t.Helper()
	for i := range n {
		if _, err := r.Next(t.Context()); err != nil {
			t.Fatalf("Next %d: %v", i, err)
		}
	}
}

// stopped stops r, failing the test on an error.
func stopped(t *testing.T, r *Recorder) Summary {
	t.Helper()
	sum, err := r.Stop()
	if err != nil {
		t.Fatalf("Stop: %v", err)
	}
	return sum
}

// NVML can take seconds to find the GPUs: a recording started before
// then must still name them, since its header is written with the first
// sample.
func TestRecorderHeaderNamesGPUsFoundAfterStart(t *testing.T) {
	src := &scriptSource{samples: samples(5, 2), info: func(taken int) timeline.SourceInfo {
		info := recordingstest.Info(2, time.Second)
		if taken == 0 {
			info.GPUs = nil // still looking
		}
		return info
	}}
	var f memFile
	r := memRecorder(src, RecorderOptions{Version: "v-test"}, func() io.WriteCloser { return &f })
	if _, err := r.Start("late.gtr"); err != nil {
		t.Fatal(err)
	}
	pull(t, r, 5)
	sum := stopped(t, r)
	if sum.Samples != 5 || sum.Path != "late.gtr" || !sum.First.Equal(src.samples[0].At) || !sum.Last.Equal(src.samples[4].At) {
		t.Errorf("Summary = %+v", sum)
	}
	rd, err := openMem(f.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	h := rd.Header()
	if len(h.Info.GPUs) != 2 || h.Version != "v-test" || !h.Start.Equal(src.samples[0].At) {
		t.Errorf("header: %d GPUs, version %q, start %v; want the 2 GPUs known at the first sample", len(h.Info.GPUs), h.Version, h.Start)
	}
}

// A GPU that shows up after the header was written is recorded too.
func TestRecorderRecordsADescriptionThatChanges(t *testing.T) {
	src := &scriptSource{samples: samples(6, 2), info: func(taken int) timeline.SourceInfo {
		if taken < 4 {
			return recordingstest.Info(1, time.Second)
		}
		return recordingstest.Info(2, time.Second)
	}}
	var f memFile
	judge := &fakeJudge{}
	r := memRecorder(src, RecorderOptions{NewJudge: judge.new}, func() io.WriteCloser { return &f })
	if _, err := r.Start("grows.gtr"); err != nil {
		t.Fatal(err)
	}
	pull(t, r, 6)
	stopped(t, r)
	rd, err := openMem(f.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	if len(rd.Header().Info.GPUs) != 1 {
		t.Fatalf("header has %d GPUs, want the 1 known at the start", len(rd.Header().Info.GPUs))
	}
	if got, err := drain(rd); err != nil || len(got) != 6 {
		t.Fatalf("read %d samples, %v", len(got), err)
	}
	if n := len(rd.Info().GPUs); n != 2 {
		t.Errorf("after reading it all the recording describes %d GPUs, want 2", n)
	}
	if n := len(judge.info.GPUs); n != 2 {
		t.Errorf("the judge was told of %d GPUs, want 2", n)
	}
}

// fakeJudge says the hints changed at the samples given in changes, and
// gives a verdict of its own.
type fakeJudge struct {
	info    timeline.SourceInfo
	added   []time.Time
	changes map[int][]timeline.Hint // by the count of samples added
}

func (j *fakeJudge) new(info timeline.SourceInfo) HintJudge { j.info = info; return j }

func (j *fakeJudge) Add(s *timeline.Sample)           { j.added = append(j.added, s.At) }
func (j *fakeJudge) SetInfo(info timeline.SourceInfo) { j.info = info }
func (j *fakeJudge) Verdict() []timeline.Hint         { return hintSet(99, 3) }

func (j *fakeJudge) Changed() ([]timeline.Hint, bool) {
	h, ok := j.changes[len(j.added)]
	return h, ok
}

// The hints as they change, each right after the sample it is current
// with, and the verdict last, stamped with the last sample.
func TestRecorderKeepsHintsAsTheyChangeAndTheVerdict(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ss := samples(6, 1)
		judge := &fakeJudge{changes: map[int][]timeline.Hint{2: hintSet(1, 2), 5: nil}}
		var f memFile
		r := memRecorder(&scriptSource{samples: ss}, RecorderOptions{NewJudge: judge.new}, func() io.WriteCloser { return &f })
		if _, err := r.Start("hints.gtr"); err != nil {
			t.Fatal(err)
		}
		pull(t, r, len(ss))
		stopped(t, r)
		if len(judge.added) != len(ss) {
			t.Errorf("the judge saw %d samples, want %d", len(judge.added), len(ss))
		}
		rd, err := openMem(f.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Close()
		if got, err := drain(rd); err != nil || len(got) != len(ss) {
			t.Fatalf("read %d samples, %v", len(got), err)
		}
		want := []HintSnapshot{{At: ss[1].At, Hints: hintSet(1, 2)}, {At: ss[4].At}, {At: ss[5].At, Hints: hintSet(99, 3)}}
		sameSnapshots(t, "through the Recorder", want, rd.Hints())
	})
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

// A disk that never answers does not delay Next by a moment: the samples
// it cannot take are dropped from the recording and counted.
func TestRecorderStuckDiskDoesNotDelayNext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ss := samples(200, 1)
		f := &stuckFile{release: make(chan struct{})}
		r := memRecorder(&scriptSource{samples: ss}, RecorderOptions{}, func() io.WriteCloser { return f })
		if _, err := r.Start("stuck.gtr"); err != nil {
			t.Fatal(err)
		}
		var once sync.Once
		unstick := func() { once.Do(func() { close(f.release) }) }
		defer r.Stop()
		defer unstick() // runs first: a failed test must not leave the writer stuck
		pull(t, r, 1)
		synctest.Wait() // the header and the first sample are written
		f.armed.Store(true)
		pull(t, r, 1)
		synctest.Wait()     // the writer takes the second sample and sticks in a flush
		start := time.Now() // the bubble's clock: it moves only if Next waits
		pull(t, r, len(ss)-2)
		if waited := time.Since(start); waited != 0 {
			t.Errorf("198 calls of Next took %v with the disk stuck; want no time at all", waited)
		}
		unstick()
		sum := stopped(t, r)
		// Two written, recorderQueue waited, the rest were dropped.
		if want := int64(len(ss) - 2 - recorderQueue); sum.Dropped != want {
			t.Errorf("Dropped = %d, want %d", sum.Dropped, want)
		}
		got, err := readMem(t, f.Bytes())
		if err != nil || len(got) != 2+recorderQueue || sum.Samples != len(got) {
			t.Fatalf("the recording holds %d samples (%v; summary %d), want %d", len(got), err, sum.Samples, 2+recorderQueue)
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
func TestRecorderFullDiskStopsRecordingOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ss := samples(120, 1)
		f := &fullFile{limit: 3000}
		r := memRecorder(&scriptSource{samples: ss}, RecorderOptions{}, func() io.WriteCloser { return f })
		if _, err := r.Start("full.gtr"); err != nil {
			t.Fatal(err)
		}
		for i := range ss {
			s, err := r.Next(t.Context())
			if err != nil || !s.At.Equal(ss[i].At) {
				t.Fatalf("Next %d = %v, %v", i, s.At, err)
			}
			synctest.Wait() // let the writer keep up, so nothing is dropped for being slow
		}
		var failure error
		select {
		case failure = <-r.Errors():
		default:
			t.Fatal("no error on Errors()")
		}
		if !errors.Is(failure, syscall.ENOSPC) {
			t.Fatalf("Errors() gave %v; want ENOSPC", failure)
		}
		oneLine(t, failure)
		if !strings.Contains(failure.Error(), "full.gtr") {
			t.Errorf("message %q does not say which recording stopped", failure)
		}
		if st := r.State(); st.On || !errors.Is(st.Failed, syscall.ENOSPC) || st.Path != "full.gtr" {
			t.Errorf("State() = %+v after the failure", st)
		}
		sum, err := r.Stop()
		if err != nil || !errors.Is(sum.Failed, syscall.ENOSPC) {
			t.Errorf("Stop() = %+v, %v; want the failure in the summary, no error again", sum, err)
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
func TestRecorderFlushesWhenTheSourceStalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ss := samples(3, 1)
		for i := range ss {
			ss[i].At = t0.Add(time.Duration(i) * 100 * time.Millisecond) // 10 Hz: no flush by sample time yet
		}
		var f lockedFile
		src := &scriptSource{samples: ss, info: func(int) timeline.SourceInfo { return recordingstest.Info(1, 100*time.Millisecond) }}
		r := memRecorder(src, RecorderOptions{}, func() io.WriteCloser { return &f })
		if _, err := r.Start("stall.gtr"); err != nil {
			t.Fatal(err)
		}
		defer r.Stop()
		pull(t, r, len(ss))
		synctest.Wait()
		if got, _ := readMem(t, f.snapshot()); len(got) != 0 {
			t.Fatalf("before a second passed: %d samples on disk, want none yet", len(got))
		}
		time.Sleep(flushEvery) // the bubble's fake clock: no real waiting
		synctest.Wait()
		if got, _ := readMem(t, f.snapshot()); len(got) != len(ss) {
			t.Fatalf("a second later: %d samples on disk, want %d", len(got), len(ss))
		}
	})
}

func TestRecorderStopClosesAndMarksPassThrough(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &scriptSource{samples: samples(10, 1)}
		var f memFile
		r := memRecorder(src, RecorderOptions{}, func() io.WriteCloser { return &f })
		r.Mark("epoch 2")
		if len(src.marks) != 1 || src.marks[0] != "epoch 2" {
			t.Errorf("source got marks %q", src.marks)
		}
		if r.Info().Host != src.Info().Host {
			t.Errorf("Info() is not the source's")
		}
		pull(t, r, 2) // not recording yet: passed through only
		if _, err := r.Start("stop.gtr"); err != nil {
			t.Fatal(err)
		}
		if again, err := r.Start("other.gtr"); err != nil || again != "stop.gtr" {
			t.Errorf("Start while recording = %q, %v; want the file being written", again, err)
		}
		pull(t, r, 5)
		if st := r.State(); !st.On || st.Samples != 5 {
			t.Errorf("State() = %+v while recording", st)
		}
		if sum := stopped(t, r); sum.Samples != 5 {
			t.Errorf("Stop: %d samples, want 5", sum.Samples)
		}
		if sum := stopped(t, r); sum != (Summary{}) {
			t.Errorf("a second Stop: %+v, want nothing", sum)
		}
		pull(t, r, 1) // after Stop: passed through
		got, err := readMem(t, f.Bytes())
		if err != nil || len(got) != 5 || !got[0].At.Equal(src.samples[2].At) {
			t.Fatalf("after Stop the file holds %d samples (%v), want the 5 from Start on and a clean end", len(got), err)
		}
	})
}

// A recording that got no sample leaves nothing behind; a path that
// cannot be written fails at Start, before anything is sampled.
func TestRecorderFilesOnDisk(t *testing.T) {
	dir := t.TempDir()
	src := &scriptSource{samples: samples(3, 1), block: true}
	r := NewRecorder(src, RecorderOptions{})
	empty := filepath.Join(dir, "empty.gtr")
	if _, err := r.Start(empty); err != nil {
		t.Fatal(err)
	}
	if sum := stopped(t, r); !sum.Removed || sum.Samples != 0 {
		t.Errorf("Stop without samples: %+v", sum)
	}
	if _, err := os.Stat(empty); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a recording without samples left %s: %v", empty, err)
	}
	for _, bad := range []string{"/proc/gputop-test.gtr", filepath.Join(dir, "missing", "x.gtr")} {
		if _, err := r.Start(bad); err == nil || src.nexts() != 0 {
			t.Errorf("Start(%s) = %v after %d samples; want an error at once", bad, err, src.nexts())
		} else {
			oneLine(t, err)
		}
	}
	kept := filepath.Join(dir, "kept.gtr")
	if _, err := r.Start(kept); err != nil {
		t.Fatal(err)
	}
	if _, err := NewRecorder(src, RecorderOptions{}).Start(kept); !errors.Is(err, fs.ErrExist) {
		t.Errorf("a second recorder took an existing file: %v", err)
	}
	pull(t, r, 3)
	sum := stopped(t, r)
	if fi, err := os.Stat(kept); err != nil || sum.Bytes != fi.Size() || sum.Samples != 3 {
		t.Errorf("summary %+v; file %v, %v", sum, fi, err)
	}
	if got, err := readAll(t, kept); err != nil || len(got) != 3 {
		t.Errorf("read back %d samples, %v", len(got), err)
	}
}

// tickSource is a live source on a fake clock: a sample each interval
// from base (t0 if zero), every one after the first late by jitter, taken
// when due.
type tickSource struct {
	base             time.Time
	interval, jitter time.Duration
	taken            atomic.Int64
}

func (s *tickSource) Next(ctx context.Context) (timeline.Sample, error) {
	n := s.taken.Load()
	base := s.base
	if base.IsZero() {
		base = t0
	}
	at := base.Add(time.Duration(n) * s.interval)
	if n > 0 {
		at = at.Add(s.jitter)
	}
	if d := time.Until(at); d > 0 {
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return timeline.Sample{}, ctx.Err()
		}
	}
	s.taken.Add(1)
	smp := samples(1, 1)[0]
	smp.At = at
	return smp, nil
}

func (s *tickSource) Info() timeline.SourceInfo { return recordingstest.Info(1, s.interval) }

// --duration ends on the sample at or before the limit: never one past
// it, and without waiting for one that cannot come in time.
func TestRunEndsOnTheLastSampleWithinTheLimit(t *testing.T) {
	for _, tt := range []struct {
		name             string
		interval, jitter time.Duration
		limit            time.Duration
		want             int
		took             time.Duration // fake time Run took
	}{
		{"on the grid", time.Second, 0, 10 * time.Second, 11, 10 * time.Second},
		{"late ticks", time.Second, 3 * time.Millisecond, 10 * time.Second, 11, 10*time.Second + 3*time.Millisecond},
		{"a limit between ticks", time.Second, 0, 2500 * time.Millisecond, 3, 2 * time.Second},
		{"an interval longer than the limit", time.Hour, 0, 2 * time.Second, 1, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				time.Sleep(time.Until(t0)) // the bubble's clock starts in 2000
				src := &tickSource{interval: tt.interval, jitter: tt.jitter}
				var f lockedFile
				r := memRecorder(src, RecorderOptions{}, func() io.WriteCloser { return &f })
				if _, err := r.Start("limit.gtr"); err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				if err := r.Run(t.Context(), tt.limit); err != nil {
					t.Fatal(err)
				}
				if took := time.Since(start); took != tt.took {
					t.Errorf("Run took %v, want %v", took, tt.took)
				}
				sum := stopped(t, r)
				if sum.Samples != tt.want || sum.Last.Sub(sum.First) > tt.limit+tt.interval/4 {
					t.Errorf("recorded %d samples over %v; want %d within %v", sum.Samples, sum.Last.Sub(sum.First), tt.want, tt.limit)
				}
			})
		})
	}
}

// gputop run takes one more sample after its job ends; if one was taken
// since, Run does not wait for another.
func TestRunEndAt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(time.Until(t0))
		src := &tickSource{interval: time.Second}
		var f lockedFile
		r := memRecorder(src, RecorderOptions{}, func() io.WriteCloser { return &f })
		if _, err := r.Start("end.gtr"); err != nil {
			t.Fatal(err)
		}
		done := make(chan error)
		go func() { done <- r.Run(context.Background(), 0) }()
		time.Sleep(5*time.Second + 500*time.Millisecond) // samples at 0..5 s
		r.EndAt(time.Now())                              // 5.5 s: the one at 6 s is wanted
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if sum := stopped(t, r); sum.Samples != 7 || !sum.Last.Equal(t0.Add(6*time.Second)) {
			t.Errorf("recorded %d samples up to %v; want 7, the last at 6 s", sum.Samples, sum.Last.Sub(t0))
		}

		// Ended at a time already recorded: Run returns without a sample more.
		src = &tickSource{base: time.Now(), interval: time.Second}
		f = lockedFile{}
		r = memRecorder(src, RecorderOptions{}, func() io.WriteCloser { return &f })
		if _, err := r.Start("end2.gtr"); err != nil {
			t.Fatal(err)
		}
		go func() { done <- r.Run(context.Background(), 0) }()
		time.Sleep(100 * time.Millisecond)
		synctest.Wait()
		r.EndAt(time.Now().Add(-time.Hour))
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if n := src.taken.Load(); n != 1 {
			t.Errorf("took %d samples; want the one before EndAt only", n)
		}
		stopped(t, r)
	})
}

// In Sync mode (record --fast) nothing is dropped, however slow the disk.
func TestRecorderSyncDropsNothing(t *testing.T) {
	ss := samples(300, 1)
	var f memFile
	r := memRecorder(&scriptSource{samples: ss}, RecorderOptions{Sync: true}, func() io.WriteCloser { return &f })
	if _, err := r.Start("sync.gtr"); err != nil {
		t.Fatal(err)
	}
	if err := r.Run(t.Context(), 0); err != nil {
		t.Fatal(err)
	}
	if sum := stopped(t, r); sum.Samples != len(ss) || sum.Dropped != 0 {
		t.Errorf("Sync: %d samples, %d dropped; want all %d", sum.Samples, sum.Dropped, len(ss))
	}
	if got, err := readMem(t, f.Bytes()); err != nil || len(got) != len(ss) {
		t.Errorf("read back %d samples, %v", len(got), err)
	}
}

// reusingSource makes each sample in the values of the one before, as the
// merge of hosts does (timeline.Source allows it).
type reusingSource struct {
	scriptSource
	values []float64
}

func (s *reusingSource) Next(ctx context.Context) (timeline.Sample, error) {
	smp, err := s.scriptSource.Next(ctx)
	s.values = append(s.values[:0], smp.Values...)
	smp.Values = s.values
	return smp, err
}

// A source may make its next sample in the metrics of the last: the file
// still holds each sample's own values, however far behind the writing
// goroutine is.
func TestRecorderKeepsEachSampleOfASourceThatReusesItsMetrics(t *testing.T) {
	ss := samples(200, 2)
	var f memFile
	src := &reusingSource{scriptSource: scriptSource{samples: ss}}
	r := memRecorder(src, RecorderOptions{}, func() io.WriteCloser { return &f })
	if _, err := r.Start("reuse.gtr"); err != nil {
		t.Fatal(err)
	}
	pull(t, r, len(ss))
	if sum := stopped(t, r); sum.Samples+int(sum.Dropped) != len(ss) {
		t.Fatalf("%d samples recorded and %d dropped, want %d in all", sum.Samples, sum.Dropped, len(ss))
	}
	got, err := readMem(t, f.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	j := 0
	for _, g := range got {
		for !ss[j].At.Equal(g.At) {
			j++ // dropped from a full queue
		}
		if !slices.EqualFunc(g.Metrics(), ss[j].Metrics(), func(a, b timeline.Metric) bool {
			return a.Key == b.Key && (a.Value == b.Value || a.Value != a.Value && b.Value != b.Value)
		}) {
			t.Fatalf("sample %d read back as %v, recorded as %v", j, g.Metrics(), ss[j].Metrics())
		}
	}
}
