package probes

import (
	"time"

	"github.com/gputop-dev/gputop/probes/progress"
	"github.com/gputop-dev/gputop/timeline"
)

// progressQueue is what a Sampler keeps of the job's progress between
// samples: the Tracker that decides which readings a recording keeps, and
// the points kept and not yet handed over. Guarded by the Sampler's mu.
type progressQueue struct {
	tracker *progress.Tracker
	points  []timeline.Progress
}

// Progress takes a reading of the job's progress from origin ("job" for
// its output, "mark" for the session socket), timed by the sampler's
// clock now. The points worth keeping ride on the next sample. Safe from
// any goroutine.
func (s *Sampler) Progress(origin string, r progress.Reading) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.progress.tracker == nil {
		s.progress.tracker = progress.NewTracker()
	}
	s.progress.points = append(s.progress.points, s.progress.tracker.Add(s.clock.Now(), r, origin)...)
}

// FlushProgress keeps the last reading, which the Tracker held back: the
// job has ended, and its last words count. Safe from any goroutine.
func (s *Sampler) FlushProgress() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.progress.tracker != nil {
		s.progress.points = append(s.progress.points, s.progress.tracker.Flush()...)
	}
}

// takeProgress removes and returns the points made at or before at, as
// takeMarkers does; a reading held back for 3 s (the job has stalled) is
// kept now. The caller holds s.mu.
func (s *Sampler) takeProgress(at time.Time) []timeline.Progress {
	q := &s.progress
	if q.tracker != nil {
		q.points = append(q.points, q.tracker.Idle(at)...)
	}
	return takeUntil(&q.points, at, func(p timeline.Progress) time.Time { return p.At })
}

// Progress passes a reading of the job's progress on (Sampler.Progress).
// Before the session is open only the newest reading is kept, and it
// counts from the moment the session opens.
func (p *PendingSession) Progress(origin string, r progress.Reading) {
	select {
	case <-p.ready:
		p.sess.Progress(origin, r)
		return
	default:
	}
	p.mu.Lock()
	p.early, p.earlyOrigin, p.hasEarly = r, origin, true
	p.mu.Unlock()
}

// FlushProgress keeps the job's last reading (Sampler.FlushProgress).
func (p *PendingSession) FlushProgress() {
	select {
	case <-p.ready:
		p.sess.FlushProgress()
	default:
	}
}

// deliverEarly passes on the reading that came before the session opened.
// The caller holds p.mu.
func (p *PendingSession) deliverEarly() {
	if p.hasEarly {
		p.sess.Progress(p.earlyOrigin, p.early)
		p.hasEarly = false
	}
}
