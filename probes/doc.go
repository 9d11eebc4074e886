// Package probes samples the GPUs (NVML through go-nvml's nvml.Interface) and
// the host (gopsutil), and runs them on a Sampler that is a timeline.Source.
//
//	Sampler.Next ─ tick ─┬─ gpu0 probe ─┐
//	                     ├─ ...         ├─ wait up to the timeout ─▶ timeline.Sample
//	                     ├─ gpu7 probe  │  (a probe still busy is marked late, never stacked)
//	                     ├─ host probe ─┘
//	                     └─ every Nth tick: GPU processes (slower tier)
//
// The demo drives the same NVML probe through go-nvml's mock server, with a
// scenario script setting what each device answers.
package probes
