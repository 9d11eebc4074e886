package timeline

import "time"

// A Recall reads a stretch of the session back from the file it was
// recorded to: it calls add with the last sample before `from` (the one a
// counter's rate at `from` is taken against), then with each sample from
// `from` to `to`, in order, as they came, until add returns false.
type Recall func(from, to time.Time, add func(*Sample) bool) error

// RecallRawValues is the raw budget of a store that can read its history
// back (StoreOptions.Recall): 2 Mi values, an hour of 8 GPUs at 1 Hz.
const RecallRawValues = 2 << 20

// recallValues is the most values a recall reads (8 Mi: about two hours of
// 8 GPUs at 1 Hz, two minutes of 64 hosts'), and recallMost the most
// samples: a window of more than half of that is drawn from the buckets.
const recallValues, recallMost = 8 << 20, 8192

// recallSamples is the most samples one recall reads.
func (s *Store) recallSamples() int64 {
	return int64(min(recallMost, recallValues/max(1, len(s.keys))))
}

// canRecall says whether the store would read a window from f to t back.
func (s *Store) canRecall(f, t int64) bool {
	return s.opts.Recall != nil && t >= f && (t-f)/max(s.interval, int64(time.Millisecond)) <= s.recallSamples()/2
}

// recalled is a stretch read back: a store of its own, whose samples were
// derived as the session's were, good for reads from `from` to `to`.
type recalled struct {
	store    *Store
	from, to int64
	added    int // the session's samples when it was read
}

// holds says whether the stretch is good for reads from f to t: it holds
// t, or it reaches the session's newest sample and none came since.
func (r *recalled) holds(s *Store, f, t int64) bool {
	return r.from <= f && (t <= r.to || r.to == s.last && r.added == s.added)
}

// fineFor is a store that holds every sample from f to t at full
// resolution: s itself, a stretch it read back, or nil. A stretch is read
// with room around it (a screen that scrolls reads again only now and
// then) and the last two kept (a screen reads its window and its cursor);
// if reading fails, s reads from its buckets from then on.
func (s *Store) fineFor(f, t int64) *Store {
	if s.added == 0 || s.raw.Oldest() <= max(f, s.first) {
		return s
	}
	if r := s.recalledFor(f, t); r != nil {
		return r.store
	}
	return nil
}

// recalledFor is the stretch read back that holds every sample from f to
// t, read now if it must be; nil if none can.
func (s *Store) recalledFor(f, t int64) *recalled {
	if !s.canRecall(f, t) {
		return nil
	}
	for i, r := range s.recalled {
		if r.store != nil && r.holds(s, f, t) {
			s.recalled[0], s.recalled[i] = r, s.recalled[0]
			return &s.recalled[0]
		}
	}
	step, most := max(s.interval, int64(time.Millisecond)), s.recallSamples()
	pad := min(max(t-f, 256*step), (most*step-(t-f))/2)
	hold := s.rawHold()
	from, to := f-pad-2*hold, min(t+pad, s.last)
	sub := NewStore(StoreOptions{})
	sub.adopt(s.schema)
	err := s.opts.Recall(time.Unix(0, from), time.Unix(0, to), func(smp *Sample) bool {
		if at := smp.At.UnixNano(); at >= s.first && at <= s.last {
			// Its values alone: the session's store keeps the rest.
			sub.Add(&Sample{At: smp.At, Columns: smp.Columns, Values: smp.Values})
		}
		return int64(sub.added) < most // a file of samples closer than the interval
	})
	if err != nil {
		s.opts.Recall, s.recalled = nil, [2]recalled{}
		return nil
	}
	sub.interval = s.interval
	if int64(sub.added) >= most {
		to = sub.last
	}
	// The first sample read back is the one before `from`: it has no
	// rates of its own, and the rest have theirs against it. A store with
	// nothing read has nothing from there on either.
	good := from + hold
	switch {
	case sub.added > 0 && sub.first == s.first:
		good = -1 << 63
	case sub.added > 0:
		good = sub.first + hold + 1
	}
	s.recalled[1], s.recalled[0] = s.recalled[0], recalled{store: sub, from: good, to: to, added: s.added}
	if r := &s.recalled[0]; r.holds(s, f, t) {
		return r
	}
	return nil
}

// SampleTimes calls fn with the time of every sample from `from` to `to`
// (inclusive) until it returns false; stepping through a paused view or a
// replay moves between them. Where the store reads back, it reads as far
// as fn goes, a stretch at a time.
func (s *Store) SampleTimes(from, to time.Time, fn func(time.Time) bool) {
	f, t := from.UnixNano(), to.UnixNano()
	for s.added > 0 && f < s.raw.Oldest() && f <= t {
		r := s.recalledFor(f, f)
		if r == nil {
			break
		}
		end := min(t, r.to)
		if !r.store.sampleTimes(f, end, fn) || end == s.last {
			return
		}
		f = end + 1
	}
	s.sampleTimes(f, t, fn)
}

// sampleTimes is SampleTimes of the raw samples; false if fn said stop.
func (s *Store) sampleTimes(f, t int64, fn func(time.Time) bool) bool {
	r := &s.raw
	for i, hi := r.Within(f, t); i < hi; i++ {
		if !fn(time.Unix(0, r.Time(i))) {
			return false
		}
	}
	return true
}

// FineSince is the time from which the store shows every sample: its first
// where it reads older ones back from the recording (StoreOptions.Recall),
// else its oldest raw sample.
func (s *Store) FineSince() time.Time {
	if s.opts.Recall != nil {
		return s.First()
	}
	return s.OldestRaw()
}
