package format

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gputop-dev/gputop/timeline"
)

// A recording's header describes the source as it was known when the file
// was created. A description that grows later (a GPU found after the
// header was written, a host added) is kept in an info record (format
// 1.2, record type 9): the whole timeline.SourceInfo, JSON-encoded as the
// header's "source" object, describing the samples from the next one on.
// Like hint snapshots, the latest is carried into each new segment, so a
// seek finds the description current there by decoding one segment.

// ErrInfoTooLarge refuses a description larger than a header may be.
var ErrInfoTooLarge = errors.New("cannot record a source description over 8 MiB")

// MarshalInfo is an info record's payload.
func MarshalInfo(info timeline.SourceInfo) ([]byte, error) {
	if err := info.CheckLimits(); err != nil {
		return nil, fmt.Errorf("cannot record a source description of %w", err)
	}
	p, err := json.Marshal(SourceToJSON(info))
	if err != nil {
		return nil, fmt.Errorf("source description: %w", err)
	}
	if len(p) > MaxHeaderBytes {
		return nil, ErrInfoTooLarge
	}
	return p, nil
}

// parseInfo reads an info record's payload back.
func parseInfo(p []byte) (timeline.SourceInfo, error) {
	var counts countsJSON
	if err := cmp.Or(json.Unmarshal(p, &counts), counts.check()); err != nil { // the JSON's error first
		return timeline.SourceInfo{}, err
	}
	var s SourceJSON
	if err := json.Unmarshal(p, &s); err != nil {
		return timeline.SourceInfo{}, err
	}
	return sourceFromJSON(s)
}
