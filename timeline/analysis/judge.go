package analysis

import (
	"slices"
	"sync"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// Judge is the one analysis of a process that samples: each sample is
// derived once and judged once, by one Engine, and everything that shows
// or keeps what gputop says of the session asks it — the screen (any
// moment it is moved to), the recording's hint snapshots and verdict,
// Prometheus' /metrics. So the screen, the file and /metrics cannot
// disagree: there is only one judgement, as a Prometheus TSDB has one
// head appender and below derives each sample once into the model every
// view reads.
//
//	source ──▶ Judge.Take ──▶ Exporter.Observe ──▶ Recorder ──▶ screen or Run
//	               │ Take            │ Latest, Hints    │ Tracker       │ Hints(cursor), Phases
//	               └──────────── one Engine ◀───────────┴───────────────┘
//
// The samples are taken on the source's goroutine; the others ask from
// theirs (the Recorder's writer, the screen's), so a Judge is safe for
// concurrent use. An answer about a moment rests only on the samples up to
// it, so a sink that asks about a sample the Judge has gone past gets the
// answer it would have got then.
type Judge struct {
	mu     sync.Mutex
	engine *Engine
	// latestAt is the newest sample's time, and derived what the Engine's
	// Deriver made of it: handed on with the sample (Sample.Derived), and
	// made again of the next one in the same numbers, as timeline.Source
	// allows.
	latestAt time.Time
	derived  timeline.Derived
	// hints is the last answer to Hints, about hintsAt with hintsOf
	// samples taken (-1 before the first).
	hints   []timeline.Hint
	hintsAt time.Time
	hintsOf int
}

// NewJudge returns the Judge of a session described by info.
func NewJudge(info timeline.SourceInfo) *Judge { return &Judge{engine: NewEngine(info), hintsOf: -1} }

// SetBudget bounds what the Judge's Engine keeps of its columns
// (Engine.SetBudget).
func (j *Judge) SetBudget(bytes int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.engine.SetBudget(bytes)
}

// Take derives and judges the next sample, with the source's description
// as it stands (a GPU found late, a host that answered), and hands what it
// derived on with the sample (Sample.Derived), for the screen's store.
func (j *Judge) Take(s *timeline.Sample, info timeline.SourceInfo) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.engine.SetInfo(info)
	// The Deriver's own numbers, not a copy: whoever pulls the sample
	// files them before it pulls the next (the screen's store), or copies
	// what it keeps (Latest).
	if j.engine.addDerived(s, &j.derived) {
		j.latestAt = s.At
	}
}

// addDerived is Add, and where s was taken, what the Engine's Deriver made
// of it written into d and handed on with it (s.Derived): the series are
// the Deriver's plan's, one slice for every sample of the same keys, and
// the numbers its own, made again at the next Add. It says whether s was
// taken; one left out (see Add) goes on underived.
func (e *Engine) addDerived(s *timeline.Sample, d *timeline.Derived) bool {
	n := e.samples
	e.Add(s)
	if e.samples == n {
		return false
	}
	*d = timeline.Derived{Schema: e.deriver.Schema(), IDs: e.deriver.IDs(), Numbers: e.values,
		OutOfRange: e.deriver.OutOfRange(), Counted: e.deriver.CountedKeys()}
	s.Derived = d
	return true
}

// AddDerived is Add for a reader that files each sample in a Store beside
// the Engine (gputop report): it hands what the Engine derived on with the
// sample (s.Derived, which it makes d), its numbers written as float32
// into vals (grown as needed) for Store.AddFloat32, so that the Store files
// them rather than deriving the sample a second time. It says whether the
// sample was taken; one left out (see Add) goes on underived, and the Store
// leaves it out too.
func (e *Engine) AddDerived(s *timeline.Sample, d *timeline.Derived, vals []float32) ([]float32, bool) {
	if !e.addDerived(s, d) {
		return vals, false
	}
	vals = slices.Grow(vals[:0], len(e.values))[:len(e.values)]
	for i, v := range e.values {
		vals[i] = float32(v)
	}
	// The store files vals in another goroutine, after the Engine has
	// made its numbers again.
	d.Numbers = nil
	return vals, true
}

// Latest returns the display values of the sample at at, if it is the
// newest the Judge took: what an exporter publishes of it, derived once.
// The slice is a copy.
func (j *Judge) Latest(at time.Time) ([]timeline.Value, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.latestAt.Equal(at) || j.engine.Len() == 0 {
		return nil, false
	}
	out := make([]timeline.Value, len(j.derived.Numbers))
	for i, k := range j.engine.deriver.Keys() {
		out[i] = timeline.Value{Key: k, Value: j.derived.Numbers[i]}
	}
	return out, true
}

// Hints is Engine.Hints: what gputop says at t. The sinks of one sample
// (the screen, the recording's tracker, the exporter) all ask about its
// time: the answer is worked out once and handed to each.
func (j *Judge) Hints(t time.Time) []timeline.Hint {
	j.mu.Lock()
	defer j.mu.Unlock()
	if n := j.engine.Len(); !j.hintsAt.Equal(t) || j.hintsOf != n {
		j.hints, j.hintsAt, j.hintsOf = j.engine.Hints(t), t, n
	}
	return slices.Clone(j.hints)
}

// Phases is Engine.Phases.
func (j *Judge) Phases(from, to time.Time) []timeline.Phase {
	return locked(j, func(e *Engine) []timeline.Phase { return e.Phases(from, to) })
}

// Len is how many samples the Judge has taken.
func (j *Judge) Len() int { return locked(j, (*Engine).Len) }

// First is the time of the first sample taken.
func (j *Judge) First() time.Time { return locked(j, (*Engine).First) }

// Last is the time of the newest sample taken.
func (j *Judge) Last() time.Time { return locked(j, (*Engine).Last) }

// locked is what ask says of the Judge's Engine, asked under its lock.
func locked[T any](j *Judge, ask func(*Engine) T) T {
	j.mu.Lock()
	defer j.mu.Unlock()
	return ask(j.engine)
}
