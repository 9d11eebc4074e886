package recordings

import "time"

// Writer policy. These are choices of the writer, not rules of the format:
// a reader takes segments of any length. (The third, format.SegmentBytes, is in
// recordings/format, whose bounds on what a reader takes are sized by it.)
const (
	// segmentSpan is how much sample time one segment covers at most. A
	// seek decodes from the start of a segment, so this bounds its cost;
	// each segment repeats its key definitions, so longer is smaller.
	segmentSpan = 5 * time.Minute
	// flushEvery is the most sample time that may sit unwritten: a kill -9
	// loses at most this much.
	flushEvery = time.Second
)
