// Package rules holds the hint rules of one host's GPUs: each a
// frame.Rule, one file per rule named after its id (gpu_idle.go is
// gpu-idle), with its thresholds in frame.Options and docs/report.md.
//
//   - of each GPU on its own: gpu-idle, idle-memory-held, low-utilization,
//     busy-wait, pcie-bound, power-capped and thermal-throttle (which share
//     throttle.go), memory-headroom, memory-pressure, frozen-telemetry;
//   - of who holds each GPU (a pod, a Slurm job): allocated-idle;
//   - of the GPUs together: gpu-imbalance, periodic-stall;
//   - of the host feeding them: input-bound, host-single-thread and io-wait
//     (which share host.go);
//   - of the job's own progress: throughput-drop, progress-stalled and
//     warm-up (which share progress.go).
//
// A rule reads the frame (timeline/analysis/frame) and nothing of the
// Engine's; it registers nothing. The Engine lists every rule, in the
// order it runs them (hintRules in timeline/analysis/hints.go), so a new
// rule is a file here and a line there. The rules across the hosts of a
// session of several are timeline/analysis/hosts'.
//
// Rules are tested through the Engine, in timeline/analysis (hints_*_test.go).
//
// It imports only the standard library, timeline, units and the frame.
package rules
