package recordings

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gputop-dev/gputop/recordings/format"
	"github.com/gputop-dev/gputop/timeline"
)

// The hints a recording keeps (format.HintSnapshot, the record's codec in
// recordings/format): which snapshot holds at a time, and what a Writer
// checks before it writes one.

// HintsAt returns the snapshot current at t, the last one stamped at or
// before t, from snaps in the order Reader.Hints gives them. ok is false if
// none is (no hints were recorded yet at t).
func HintsAt(snaps []HintSnapshot, t time.Time) (snap HintSnapshot, ok bool) {
	i := len(snaps) - 1
	for i >= 0 && snaps[i].At.After(t) {
		i--
	}
	if i < 0 {
		return HintSnapshot{}, false
	}
	return snaps[i], true
}

// errHintsBeforeSamples says WriteHints came before any sample: a snapshot
// is stamped with a sample's time.
var errHintsBeforeSamples = errors.New("cannot record hints before the first sample")

// checkHints refuses a snapshot the format cannot keep exactly, or that
// breaks the Hint contract: a confidence outside 0..1 (NaN included), or a
// start or end that is unset or outside 1678-2262.
func checkHints(hints []timeline.Hint) error {
	items := len(hints)
	for i := range hints {
		h := &hints[i]
		items += len(h.GPUs) + len(h.Episodes)
		times := []time.Time{h.Start, h.End}
		for _, ep := range h.Episodes {
			items += len(ep.GPUs)
			times = append(times, ep.Start, ep.End)
		}
		if items > format.MaxListLen {
			return fmt.Errorf("cannot record a snapshot of more than %d hints, GPUs and episodes", format.MaxListLen)
		}
		if !(h.Confidence >= 0 && h.Confidence <= 1) {
			return fmt.Errorf("hint %q: confidence %v is not within 0..1", h.ID, h.Confidence)
		}
		for _, t := range times {
			if _, err := unixNano(t); err != nil {
				return fmt.Errorf("hint %q: %w", h.ID, err)
			}
		}
	}
	return nil
}

// cloneHints copies a snapshot deeply enough that the caller may reuse its
// slices once the call returns.
func cloneHints(hints []timeline.Hint) []timeline.Hint {
	out := slices.Clone(hints)
	for i := range out {
		out[i].GPUs = slices.Clone(out[i].GPUs)
		out[i].Episodes = slices.Clone(out[i].Episodes)
		for j := range out[i].Episodes {
			out[i].Episodes[j].GPUs = slices.Clone(out[i].Episodes[j].GPUs)
		}
	}
	return out
}
