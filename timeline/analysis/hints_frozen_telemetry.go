package analysis

import (
	"fmt"

	"github.com/gputop-dev/gputop/timeline"
)

// frozenTelemetryRule is frozen-telemetry: a GPU whose every figure the
// Engine keeps (utilisation, SM activity, power, memory, temperature, SM
// clock, PCIe traffic, clock-event reasons) repeats to the last digit for
// FrozenMin (2 min) or more, over 8 columns or more, after they varied.
// A hung driver or exporter, or a stale DCGM cache, hands out the last
// readings again and again; a live GPU's readings jitter. So the stretch
// is no data: its columns are unknown to every other rule (a GPU frozen at
// 100 % and 700 W is not a busy plateau, nor one frozen at 0 % an idle
// GPU), and this rule says so. Warning.
//
// What counts as a freeze, and why (real logs of testdata/telemetry, and
// the demos, checked in hints_frozen_real_test.go):
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
var frozenTelemetryRule = hintRule{
	id: timeline.HintFrozenTelemetry,
	find: func(f *hintFrame) []hintCand {
		if f.kept == nil {
			return nil
		}
		var out []hintCand
		for _, g := range f.gpus {
			fg := f.kept.frozen.gpus[g.index]
			if fg == nil {
				continue
			}
			for _, sp := range fg.spans {
				if sp.seen >= f.n {
					break // recognised after the view's end
				}
				out = append(out, hintCand{id: timeline.HintFrozenTelemetry, gpu: g.index, firm: true,
					spans: []hintSpan{{sp.lo, min(sp.hi, f.n)}}})
			}
		}
		return out
	},
	describe: func(f *hintFrame, g *hintGroup) (timeline.Hint, bool) {
		fg := f.kept.frozen.gpus[g.gpus[0]]
		var what string
		for _, sp := range fg.spans {
			if sp.lo == g.spans[0].lo {
				what = sp.readings()
			}
		}
		names := f.gpuNames(g.gpus)
		verb := "'s readings"
		if len(g.gpus) > 1 {
			verb = ": their readings"
		}
		return timeline.Hint{
			Severity: timeline.Warning,
			Evidence: fmt.Sprintf("%s%s froze %s: every figure repeated to the last digit (%s) after they varied; "+
				"treated as no data", names, verb, f.during(g), what),
			Suggestion: "Telemetry stopped updating: a hung driver or exporter, or a stale DCGM cache. Check " +
				"`nvidia-smi` on the node (a hang there is the driver: look for Xid errors in `dmesg`), restart the " +
				"exporter (dcgm-exporter, nv-hostengine) or the monitoring agent; nothing is judged on these readings.",
			Confidence: 0.9,
		}, true
	},
}
