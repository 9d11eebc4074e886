package recordings

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// teeQueue is how many samples may wait for a slow disk: a minute at 1 Hz.
const teeQueue = 64

// Tee records a Source while passing its samples on. It is itself a
// timeline.Source: Next returns the source's sample at once and hands it to
// a writer goroutine through a bounded queue, so a slow or stuck disk never
// delays sampling or the screen. A full queue drops the sample from the
// recording (Dropped counts them); it never blocks.
//
//	src.Next ──▶ Tee.Next ──▶ caller (the UI)
//	                 └──▶ queue ──▶ writer goroutine ──▶ Writer ──▶ file
//
// A write error (a full disk, the file removed) stops the recording: the
// Tee calls onError once and goes on passing samples through.
type Tee struct {
	src     timeline.Source
	w       *Writer
	onError func(error)

	queue   chan timeline.Sample // never closed: Next may still run after Stop
	stop    chan struct{}
	done    chan struct{}
	off     atomic.Bool // no more recording: stopped or failed
	dropped atomic.Int64

	stopOnce sync.Once
	closeErr error // from the final flush and close, for Stop
}

// NewTee starts recording src's samples to w. onError is called, from the
// writer goroutine, at most once: when a write fails. With a nil onError,
// Stop returns that failure instead.
func NewTee(src timeline.Source, w *Writer, onError func(error)) *Tee {
	t := &Tee{
		src: src, w: w, onError: onError,
		queue: make(chan timeline.Sample, teeQueue),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	go t.run()
	return t
}

// Next returns the source's next sample, and queues it for the recording.
func (t *Tee) Next(ctx context.Context) (timeline.Sample, error) {
	s, err := t.src.Next(ctx)
	if err == nil && !t.off.Load() {
		select {
		case t.queue <- s:
		default:
			t.dropped.Add(1)
		}
	}
	return s, err
}

// Info is the source's.
func (t *Tee) Info() timeline.SourceInfo { return t.src.Info() }

// Mark passes a marker to the source, if it takes markers; it comes back
// with a later sample and is recorded with it.
func (t *Tee) Mark(text string) {
	if m, ok := t.src.(timeline.MarkSink); ok {
		m.Mark(text)
	}
}

// Dropped is how many samples were left out of the recording because the
// disk could not keep up.
func (t *Tee) Dropped() int64 { return t.dropped.Load() }

// Stop ends the recording: it writes what is queued, closes the file and
// waits for the writer goroutine. It returns an error of that final
// flush and close; a failure already given to onError is not returned
// again. Samples go on passing through Next.
func (t *Tee) Stop() error {
	t.stopOnce.Do(func() {
		t.off.Store(true)
		close(t.stop)
		<-t.done
	})
	return t.closeErr
}

// run writes queued samples, and flushes on a wall-clock tick too, so a
// source that stalls (a hung probe, a paused demo) still has its last
// samples on disk within a second.
func (t *Tee) run() {
	defer close(t.done)
	tick := time.NewTicker(flushEvery)
	defer tick.Stop()
	for {
		select {
		case s := <-t.queue:
			if !t.ok(t.w.Write(&s)) {
				return
			}
		case <-tick.C:
			if t.w.Pending() && !t.ok(t.w.Flush()) {
				return
			}
		case <-t.stop:
			for {
				select {
				case s := <-t.queue:
					if !t.ok(t.w.Write(&s)) {
						return
					}
				default:
					t.closeErr = t.w.Close()
					return
				}
			}
		}
	}
}

// ok handles a write's error: the first one stops the recording, is
// reported, and closes the file so what was written stays readable.
func (t *Tee) ok(err error) bool {
	if err == nil {
		return true
	}
	t.off.Store(true)
	if t.onError != nil {
		t.onError(err)
	} else {
		t.closeErr = err
	}
	if cerr := t.w.Close(); cerr != nil && !errors.Is(cerr, err) {
		t.closeErr = cerr
	}
	return false
}
