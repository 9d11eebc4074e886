package accuracy

import (
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// Part names the three parts of the corpus.
type Part string

// The parts of the corpus, in the order the document lists them.
const (
	Real      Part = "real"      // other people's logs, labelled by an expert's reading
	Demo      Part = "demo"      // gputop's demo scenarios, through the real NVML probe over the mock
	Synthetic Part = "synthetic" // generated runs whose truth is known second by second
)

// Label is one episode a case must raise: a hint, on which GPUs, over which
// stretch (offsets from the run's first sample). A hint answers it where one
// of its episodes has the ID, overlaps the stretch, and shares a GPU with
// GPUs (any GPU where GPUs is empty).
type Label struct {
	ID       string
	GPUs     []int
	From, To time.Duration
}

// Case is one labelled run.
type Case struct {
	// Name is unique in the corpus: "real/llama8b…", "synthetic/periodic-stall/07".
	Name string
	Part Part
	// Family groups the synthetic runs of one hint (and the healthy ones);
	// for real logs and demos it is the file or the scenario.
	Family string
	// Shape says in a few words what the run is: its format, interval and
	// what happens in it.
	Shape string
	// Labels are the episodes it must raise.
	Labels []Label
	// May lists hints that are right here but not required (another true
	// reading of the same thing): they count neither for nor against.
	// Every other hint a case raises is a false positive.
	May []string
	// Healthy marks a control: nothing is wrong, so a warning or worse is a
	// false warning.
	Healthy bool
	// Why says, where gputop is known to miss the case, why: what the log
	// lacks or what gputop cannot read.
	Why string
	// Reading is the expert's reading (real logs) or the truth (the others),
	// for the document.
	Reading string
}

// Answer is what gputop said of one run: the report over all of it (the
// hints of an Engine fed every sample, asked at the last) and, for the time
// to first detection, what a live screen said as the samples came.
type Answer struct {
	First, Last time.Time
	Hints       []timeline.Hint
	// Live is the hints a live screen showed, asked every few seconds of
	// sample time, in time order.
	Live []LiveAnswer
	// Err is why the run could not be judged (a log gputop cannot import).
	Err string
}

// LiveAnswer is the hints a live Engine gave at one moment.
type LiveAnswer struct {
	At    time.Time
	Hints []timeline.Hint
}
