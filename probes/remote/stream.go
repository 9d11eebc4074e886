package remote

import (
	"io"

	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/timeline"
)

// OpenStream decodes a `gputop stream` with the recordings' stream reader:
// its header's description first, then its samples and the descriptions
// that grow. Its hint snapshots are left out: the viewer judges the merged
// session itself, with every host in view.
func OpenStream(r io.Reader) (Feed, error) {
	sr, err := recordings.NewStreamReader(r, "the stream")
	if err != nil {
		return nil, err
	}
	info := sr.Header().Info
	return &streamFeed{sr: sr, first: &info}, nil
}

type streamFeed struct {
	sr    *recordings.StreamReader
	first *timeline.SourceInfo
}

func (f *streamFeed) Next() (Event, error) {
	if f.first != nil {
		ev := Event{Info: f.first}
		f.first = nil
		return ev, nil
	}
	for {
		ev, err := f.sr.Next()
		if err != nil {
			return Event{}, err
		}
		switch ev.Item {
		case recordings.StreamSample:
			s := ev.Sample
			return Event{Sample: &s}, nil
		case recordings.StreamInfo:
			in := ev.Info
			return Event{Info: &in}, nil
		}
	}
}

// Recycle hands back the values of a sample Next returned, merged and no
// longer needed, to be decoded into (recordings.StreamReader.Recycle).
func (f *streamFeed) Recycle(v []float64) { f.sr.Recycle(v) }

// Close releases the stream's decoder.
func (f *streamFeed) Close() error { return f.sr.Close() }
