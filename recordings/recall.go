package recordings

import (
	"errors"
	"io"
	"math"
	"sort"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// Recaller reads stretches of a recording back for a store that has let
// go of them (timeline.StoreOptions.Recall), on a reader of its own: a
// replay then holds an hour of a day at full resolution and reads the
// rest from the file as the screen moves. It is not safe for concurrent
// use; the store calls it from its one goroutine.
type Recaller struct{ r *Reader }

// Recaller reads back on a second reader of the file r reads, from its
// start, on the file r opened: a recording written over its path since
// does not change what either reads. Close it before r.
func (r *Reader) Recaller() (*Recaller, error) {
	if r.file == nil {
		return nil, errClosed
	}
	again, err := newReader(r.file, r.size, r.path)
	if err != nil {
		return nil, err
	}
	return &Recaller{r: again}, nil
}

// Recall is a timeline.Recall: it calls add with the samples Read returns
// from the last one before `from` to `to`, until add says stop. It reads
// from the start of the last segment that starts before `from`, which
// holds that sample. Damage ends the stretch where it ends a replay's
// reading; any other error is returned. Between stretches it holds no
// segment (Reader.shed).
func (c *Recaller) Recall(from, to time.Time, add func(*timeline.Sample) bool) error {
	r := c.r
	if r == nil || r.file == nil {
		return errClosed
	}
	defer r.shed()
	ns := clampNano(from)
	i := sort.Search(len(r.segments), func(i int) bool { return r.segments[i].First >= ns }) - 1
	r.startAt(max(i, 0), math.MinInt64, false)
	var before timeline.Sample
	for {
		s, err := r.Read()
		switch {
		case errors.Is(err, io.EOF) || errors.As(err, new(*DamagedError)):
			return nil
		case err != nil:
			return err
		case s.At.Before(from):
			before = s
			continue
		case !before.At.IsZero():
			if !add(&before) {
				return nil
			}
			before = timeline.Sample{}
		}
		if s.At.After(to) || !add(&s) {
			return nil
		}
	}
}

// Close closes the reader.
func (c *Recaller) Close() error { return c.r.Close() }

// RecallWhole is a timeline.Recall of the recording r makes to path, for a
// live screen that has recorded since its first sample: it reads back
// while r records there with every sample it was handed, and fails once
// r stops or has left one out (State.Dropped: its queue was full), so the
// screen goes back to its buckets and says so.
func (r *Recorder) RecallWhole(path string) timeline.Recall {
	return func(from, to time.Time, add func(*timeline.Sample) bool) error {
		if st := r.State(); !st.On || st.Path != path || st.Dropped > 0 {
			return errNotWhole
		}
		f, err := Open(path)
		if err != nil {
			return err
		}
		c := &Recaller{r: f}
		defer c.Close()
		return c.Recall(from, to, add)
	}
}

var errNotWhole = errors.New("the recording no longer holds every sample")
