package recordings

import (
	"context"
	"sync"

	"github.com/gputop-dev/gputop/timeline"
)

// Replay is a recording as a timeline.Source, so the UI shows it on the
// same screens as a live session. It hands over many samples at once too
// (NextBatch: the screen's ui.BatchSource), so a long file loads quickly.
type Replay struct {
	r *Reader
	// info is the description current with the last sample read, as a
	// replay's. The UI may ask for it while Next runs in another goroutine.
	mu   sync.Mutex
	info timeline.SourceInfo
	// held is an error met while filling a batch, returned by the next call
	// so the samples before it are delivered first.
	held error
}

// NewReplay returns r's samples as a timeline.Source. Next returns them as
// fast as they are asked for: the UI paces playback, not the source. At
// the end Next returns io.EOF, or for a file that is cut short or damaged
// the *DamagedError once and then io.EOF. Info is the recorded source's,
// as the recording describes it at the last sample read (Reader.Info),
// with Kind Replay, Origin the file, and Recorded what it was recorded
// from (live, demo, import).
func NewReplay(r *Reader) *Replay {
	p := &Replay{r: r}
	p.takeInfo()
	return p
}

// takeInfo makes the reader's description of the source the replay's.
func (p *Replay) takeInfo() {
	info := p.r.Info()
	if info.Kind != timeline.Replay { // a recording of a replay keeps the first kind
		info.Recorded = info.Kind
	}
	info.Kind = timeline.Replay
	info.Origin = p.r.path
	p.mu.Lock()
	p.info = info
	p.mu.Unlock()
}

func (p *Replay) Next(ctx context.Context) (timeline.Sample, error) {
	if err := ctx.Err(); err != nil {
		return timeline.Sample{}, err
	}
	if err := p.held; err != nil {
		p.held = nil
		return timeline.Sample{}, err
	}
	s, err := p.r.Read()
	p.takeInfo()
	return s, err
}

// NextBatch returns up to max samples at once, so a long recording loads
// into the screen in a few dozen steps. It returns an error only with no
// samples: one met mid-batch waits for the next call.
func (p *Replay) NextBatch(ctx context.Context, max int) ([]timeline.Sample, error) {
	var out []timeline.Sample
	for len(out) < max {
		s, err := p.Next(ctx)
		if err != nil {
			if len(out) == 0 {
				return nil, err
			}
			p.held = err
			break
		}
		out = append(out, s)
	}
	return out, nil
}

func (p *Replay) Info() timeline.SourceInfo {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.info
}
