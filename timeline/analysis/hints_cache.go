package analysis

import "github.com/gputop-dev/gputop/timeline"

// hintCache is what an Engine keeps of its answers between one question
// and the next: the episodes described, and the hints last given. The
// rules' verdicts are the frame's (Kept).
type hintCache struct {
	described map[string]described

	// hints is the answer last given, for the view of n columns over
	// samples added; asked again before anything changes, it is given again.
	hintsN, hintsSamples int
	hintsOpen            bool // the view reached the column being filled
	hints                []timeline.Hint
}

func (c *hintCache) init() {
	c.described = map[string]described{}
	c.hintsN = -1
}

// described is a hint as a rule described an episode, kept by the
// episode's rule, key, GPUs and columns: a description uses only the
// columns of the episode, so it is the same whenever it is asked for.
type described struct {
	hint timeline.Hint
	ok   bool
}

// maxDescribed bounds the descriptions kept; past it they are forgotten
// and made again as asked.
const maxDescribed = 4096
