package recordings

import (
	"context"

	"github.com/gputop-dev/gputop/timeline"
)

// replay is a recording as a timeline.Source, so the UI shows it on the
// same screens as a live session.
type replay struct {
	r    *Reader
	info timeline.SourceInfo
	// held is an error met while filling a batch, returned by the next call
	// so the samples before it are delivered first.
	held error
}

// NewReplay returns r's samples as a timeline.Source. Next returns them as
// fast as they are asked for: the UI paces playback, not the source. At
// the end Next returns io.EOF, or for a file that is cut short or damaged
// the *DamagedError once and then io.EOF. Info is the recorded source's,
// with Kind Replay, Origin the file, and Recorded what it was recorded
// from (live, demo, import).
func NewReplay(r *Reader) timeline.Source {
	info := r.Header().Info
	if info.Kind != timeline.Replay { // a recording of a replay keeps the first kind
		info.Recorded = info.Kind
	}
	info.Kind = timeline.Replay
	info.Origin = r.path
	return &replay{r: r, info: info}
}

func (p *replay) Next(ctx context.Context) (timeline.Sample, error) {
	if err := ctx.Err(); err != nil {
		return timeline.Sample{}, err
	}
	if p.held != nil {
		err := p.held
		p.held = nil
		return timeline.Sample{}, err
	}
	return p.r.Read()
}

// NextBatch returns up to max samples at once, so a long recording loads
// into the screen in a few dozen steps. It returns an error only with no
// samples: one met mid-batch waits for the next call.
func (p *replay) NextBatch(ctx context.Context, max int) ([]timeline.Sample, error) {
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

func (p *replay) Info() timeline.SourceInfo { return p.info }
