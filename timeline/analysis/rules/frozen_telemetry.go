package rules

import (
	"fmt"
	"slices"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
)

// FrozenTelemetry is frozen-telemetry: a GPU whose every figure the
// Engine keeps (utilisation, SM activity, power, memory, temperature, SM
// clock, PCIe traffic, clock-event reasons) repeats to the last digit for
// FrozenMin (2 min) or more, over 8 columns or more, after they varied.
// A hung driver or exporter, or a stale DCGM cache, hands out the last
// readings again and again; a live GPU's readings jitter. So the stretch
// is no data: its columns are unknown to every other rule (a GPU frozen at
// 100 % and 700 W is not a busy plateau, nor one frozen at 0 % an idle
// GPU), and this rule says so. Warning.
//
// What counts as a freeze, and why (the real logs the tests read, and
// the demos, checked in timeline/analysis/hints_frozen_real_test.go):
//
//   - the readings include power, and power would move: the GPU is
//     working (util at IdleUtil or more, or SM activity at IdleSM or more)
//     or its power has digits below the watt. A live GPU's power moves in
//     its last digit from one second to the next: in the real logs with
//     power, no GPU repeats every figure for more than 4 s. An idle GPU
//     logged in whole watts does hold still (vgg16's dmon: 21 W, 47 C,
//     0 % for 3m43s), and so does one without power readings (unet's H200
//     at 0 %, 34 C for 2m22s): neither can be told from a frozen one, and
//     the rule stays silent on them;
//   - the figures varied before: they changed between at least half of the
//     (four or more) columns of the FrozenMin before the stretch, so a
//     mock whose values never move is not a freeze;
//   - it is recognised FrozenMin into the stretch (live, a hung NVML that
//     returns cached values), and from then on the whole stretch, its
//     first FrozenMin too, is unknown: a moment of that first FrozenMin
//     asked about afterwards (a replay stepped back) reads as unknown,
//     where asked about before it was recognised it read as what it
//     showed. The phases (busy, stalled, idle) still take its readings.
var FrozenTelemetry = frame.Rule{
	ID: timeline.HintFrozenTelemetry,
	Find: func(f *frame.Frame) []frame.Cand {
		if f.Kept == nil {
			return nil
		}
		var out []frame.Cand
		for _, g := range f.GPUs {
			fg := f.Kept.Frozen.GPUs[g.Index]
			if fg == nil {
				continue
			}
			for _, sp := range fg.Spans {
				if sp.Seen >= f.N {
					break // recognised after the view's end
				}
				out = append(out, frame.Cand{ID: timeline.HintFrozenTelemetry, GPU: g.Index, Firm: true,
					Spans: []frame.Span{{Lo: sp.Lo, Hi: min(sp.Hi, f.N)}}})
			}
		}
		return out
	},
	Describe: func(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
		fg := f.Kept.Frozen.GPUs[g.GPUs[0]]
		what := ""
		if k := slices.IndexFunc(fg.Spans, func(sp frame.FrozenSpan) bool { return sp.Lo == g.Spans[0].Lo }); k >= 0 {
			what = fg.Spans[k].Readings()
		}
		verb := "'s readings"
		if len(g.GPUs) > 1 {
			verb = ": their readings"
		}
		return timeline.Hint{
			Severity: timeline.Warning,
			Evidence: fmt.Sprintf("%s%s froze %s: every figure repeated to the last digit (%s) after they varied; "+
				"treated as no data", f.GPUNames(g.GPUs), verb, f.During(g), what),
			Suggestion: "Telemetry stopped updating: a hung driver or exporter, or a stale DCGM cache. Check " +
				"`nvidia-smi` on the node (a hang there is the driver: look for Xid errors in `dmesg`), restart the " +
				"exporter (dcgm-exporter, nv-hostengine) or the monitoring agent; nothing is judged on these readings.",
			Confidence: 0.9,
		}, true
	},
}
