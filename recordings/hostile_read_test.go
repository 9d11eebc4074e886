package recordings

import (
	"errors"
	"io"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// maxHeapGrowth bounds how far the heap may grow while one hostile input
// is read (garbage not yet collected included): the binary's goal is
// 300 MB for the whole command.
const maxHeapGrowth = 256 << 20

// hangGuard is how long a read may take before a test calls it hung: far
// beyond what any input here needs (a second or two under -race), only so
// that a loop fails the test instead of its timeout.
const hangGuard = 2 * time.Minute

// heapWatch samples the heap's size until stop is called, which returns
// the most it grew by. runtime/metrics reads it without stopping the world.
func heapWatch() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	runtime.GC()
	base, peak := read(), uint64(0)
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, read())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	var once sync.Once
	return func() uint64 {
		once.Do(func() { close(done); <-finished })
		peak = max(peak, read())
		return peak - min(peak, base)
	}
}

// bounded runs read, failing t if it grows the heap by more than
// maxHeapGrowth, and the test binary if it does not return within
// hangGuard (read may call t.Fatal, so it runs on t's goroutine).
func bounded(t *testing.T, what string, read func()) {
	t.Helper()
	stop := heapWatch()
	hung := time.AfterFunc(hangGuard, func() { panic(what + ": still reading after " + hangGuard.String()) })
	read()
	hung.Stop()
	if grew := stop(); grew > maxHeapGrowth {
		t.Errorf("%s: the heap grew by %d MiB, more than %d", what, grew>>20, maxHeapGrowth>>20)
	}
}

// TestHostileInputs reads every hostile input with the file reader and the
// stream reader: each ends in one line (a typed error, or the end) with
// exactly the samples it should give, within bounded memory and time.
func TestHostileInputs(t *testing.T) {
	for _, h := range hostileInputs(t) {
		t.Run(h.name, func(t *testing.T) {
			var n int
			var info timeline.SourceInfo
			var err error
			bounded(t, "the file reader", func() { n, info, err = readHostileFile(h) })
			checkHostileEnd(t, "file", n, h.file, err)
			if h.file > 0 {
				checkInterval(t, h.name, info)
			}
			bounded(t, "the stream reader", func() { n, info, err = readHostileStream(h) })
			checkHostileEnd(t, "stream", n, h.stream, err)
			if h.stream > 0 {
				checkInterval(t, h.name, info)
			}
		})
	}
}

// readHostileFile reads h with the file reader to its end: the samples,
// the description at the end, and the error it ended with (the one Open
// refused it with, or the one after the samples; nil for a clean end).
func readHostileFile(h hostileInput) (int, timeline.SourceInfo, error) {
	r, err := newReader(h, h.fileSize(), h.name)
	if err != nil {
		return -1, timeline.SourceInfo{}, err
	}
	defer r.Close()
	r.Span()
	n := 0
	for {
		_, err := r.Read()
		if errors.Is(err, io.EOF) {
			return n, r.Info(), nil
		}
		if err != nil {
			return n, r.Info(), err
		}
		n++
	}
}

// readHostileStream is readHostileFile with the stream reader.
func readHostileStream(h hostileInput) (int, timeline.SourceInfo, error) {
	sr, err := NewStreamReader(h.reader(), h.name)
	if err != nil {
		return -1, timeline.SourceInfo{}, err
	}
	defer sr.Close()
	n := 0
	for {
		ev, err := sr.Next()
		if errors.Is(err, io.EOF) {
			return n, sr.Info(), nil
		}
		if err != nil {
			return n, sr.Info(), err
		}
		if ev.Item == StreamSample {
			n++
		}
	}
}

// checkHostileEnd checks how a reader ended: with the samples it should
// give, and an error that is typed and one line.
func checkHostileEnd(t *testing.T, reader string, n, want int, err error) {
	t.Helper()
	if n != want {
		t.Errorf("the %s reader read %d samples, want %d (%v)", reader, n, want, err)
	}
	if err == nil {
		return
	}
	var nr *NotRecordingError
	var de *DamagedError
	var se *StreamError
	if !errors.As(err, &nr) && !errors.As(err, &de) && !errors.As(err, &se) {
		t.Errorf("the %s reader: untyped error %v (%T)", reader, err, err)
	}
	oneLine(t, err)
}

// checkInterval checks that an absurd interval reads as unknown, with a
// note that says so, and a sane one as it is.
func checkInterval(t *testing.T, name string, info timeline.SourceInfo) {
	t.Helper()
	absurd := strings.HasPrefix(name, "interval-")
	noted := strings.Contains(strings.Join(info.Notes, "\n"), "taken as unknown")
	if absurd && (info.Interval != 0 || !noted) || !absurd && info.Interval != time.Second {
		t.Errorf("interval %v, notes %q", info.Interval, info.Notes)
	}
}
