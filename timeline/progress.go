package timeline

import (
	"slices"
	"time"
)

// Progress is one reading of the job's own progress: how much work it has
// done and how fast, in its own unit, as its output (a tqdm bar, a log
// line) or `gputop mark "progress 1200 steps"` said it. A recording keeps
// a few of them, sparsely: one every few seconds, and where the rate
// changes.
type Progress struct {
	At time.Time
	// Done is the units done since the job began, counted on across the
	// bars it restarts each epoch; NaN where the job states only a rate.
	Done float64
	// Rate is units a second as the job stated it (tqdm's smoothed rate);
	// NaN where it stated none. A rate over time comes from Done where
	// there is one (work.Rate).
	Rate float64
	// Unit is the job's name for its unit of work: "it", "step",
	// "sample", "token", "img".
	Unit string
	// Origin is "job" (its output) or "mark" (the session socket).
	Origin string
}

// maxProgress bounds the readings a Store keeps; the oldest quarter goes
// first. At one a second (far more than a recording keeps) it is 12 days.
const maxProgress = 1 << 20

func (s *Store) addProgress(p Progress) {
	if len(s.progress) >= maxProgress {
		s.progress = append(s.progress[:0], s.progress[len(s.progress)/4:]...)
	}
	if n := len(s.progress); n > 0 && p.At.Before(s.progress[n-1].At) {
		return // history is in time order
	}
	s.progress = append(s.progress, p)
}

// Counted says whether the raw counter k lay behind a display value
// (Deriver.Counted): GPUEnergy, where a GPU's power came from its energy
// counter. Of samples derived upstream, the upstream Deriver says.
func (s *Store) Counted(k Key) bool {
	return s.deriver.Counted(k) || slices.Contains(s.derivedCounted, k)
}

// Progress returns the job's progress readings, oldest first (not to be
// changed).
func (s *Store) Progress() []Progress { return s.progress }
