// Package probes samples the GPUs (NVML through go-nvml's nvml.Interface) and
// the host (gopsutil), and runs them on a Sampler that is a timeline.Source.
//
//	Sampler.Next ─ tick ─┬─ gpu0 probe ─┐
//	                     ├─ ...         ├─ wait up to the timeout ─▶ timeline.Sample
//	                     ├─ gpu7 probe  │  (a probe still busy is marked late, never stacked)
//	                     ├─ host probe ─┘
//	                     └─ every Nth tick: GPU processes (slower tier)
//
// Beside the probes (NVML, host, gputop itself, a job's process tree, the
// processes on the GPUs) it holds the sessions that assemble them
// (OpenSession), and the job runner of `gputop run`, whose job runs under a
// guard process (job_guard.go: this binary run again, so main calls
// JobGuardMain first) that ends it if gputop dies; the marker socket is
// probes/marks, the simulated node probes/demo.
//
// Everything here reads a real machine. The demo (probes/demo) is a
// simulated one: it imports probes and hands a session a Machine, whose
// mock NVML the same NVML probe reads; probes never imports it.
package probes
