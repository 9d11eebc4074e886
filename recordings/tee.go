package recordings

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// teeQueue is how many samples (and hint snapshots) may wait for a slow
// disk: a minute at 1 Hz.
const teeQueue = 64

// teeItem is what the queue carries: a sample, or a hint snapshot, which
// must reach the file in the order they were queued.
type teeItem struct {
	sample  timeline.Sample
	hints   []timeline.Hint
	isHints bool
}

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
//
// WriteHints records the hints shown through the same queue, so that each
// snapshot lands in the file right after the sample it is current with.
type Tee struct {
	src     timeline.Source
	w       *Writer
	onError func(error)

	queue        chan teeItem // never closed: Next may still run after Stop
	stop         chan struct{}
	done         chan struct{}
	off          atomic.Bool // no more recording: stopped or failed
	dropped      atomic.Int64
	droppedHints atomic.Int64

	// early is a hint snapshot queued before any sample, written (by the
	// writer goroutine, which alone uses it) right after the first.
	early    []timeline.Hint
	hasEarly bool

	stopOnce sync.Once
	closeErr error // from the final flush and close, for Stop
}

// NewTee starts recording src's samples to w. onError is called, from the
// writer goroutine, at most once: when a write fails. With a nil onError,
// Stop returns that failure instead.
func NewTee(src timeline.Source, w *Writer, onError func(error)) *Tee {
	t := &Tee{
		src: src, w: w, onError: onError,
		queue: make(chan teeItem, teeQueue),
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
		case t.queue <- teeItem{sample: s}:
		default:
			t.dropped.Add(1)
		}
	}
	return s, err
}

// WriteHints queues a snapshot of the hints shown now (the whole set, nil
// when there are none) for the recording; call it whenever the set
// changes, and once when recording starts. Like Next, it never waits for
// the disk: a full queue drops the snapshot (DroppedHints counts them).
// The writer goroutine stamps it with the time of the last sample queued
// before it; a snapshot queued before any sample is stamped with the
// first. It returns an error, and queues nothing, for hints the format
// cannot keep (see Writer.WriteHints); it keeps its own copy of hints.
func (t *Tee) WriteHints(hints []timeline.Hint) error {
	if err := checkHints(hints); err != nil {
		return err
	}
	if t.off.Load() {
		return nil
	}
	select {
	case t.queue <- teeItem{hints: cloneHints(hints), isHints: true}:
	default:
		t.droppedHints.Add(1)
	}
	return nil
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

// DroppedHints is how many hint snapshots were left out of the recording
// because the disk could not keep up. A later snapshot replaces what a
// dropped one said.
func (t *Tee) DroppedHints() int64 { return t.droppedHints.Load() }

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
		case it := <-t.queue:
			if !t.ok(t.write(&it)) {
				return
			}
		case <-tick.C:
			if t.w.Pending() && !t.ok(t.w.Flush()) {
				return
			}
		case <-t.stop:
			for {
				select {
				case it := <-t.queue:
					if !t.ok(t.write(&it)) {
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

// write writes one queued item. A hint snapshot is stamped with the time
// of the last sample written, which is the last one queued before it: the
// queue keeps their order.
func (t *Tee) write(it *teeItem) error {
	w := t.w
	if it.isHints {
		if w.index.samples == 0 {
			t.early, t.hasEarly = it.hints, true // nothing to stamp it with yet
			return nil
		}
		return w.WriteHints(time.Unix(0, w.index.last), it.hints)
	}
	if err := w.Write(&it.sample); err != nil {
		return err
	}
	if t.hasEarly {
		early := t.early
		t.early, t.hasEarly = nil, false
		return w.WriteHints(time.Unix(0, w.index.last), early)
	}
	return nil
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
