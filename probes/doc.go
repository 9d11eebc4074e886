// Package probes samples the GPUs (NVML through go-nvml's nvml.Interface) and
// the host (gopsutil), and runs them on a Sampler that is a timeline.Source.
//
//	Sampler.Next ─ tick ─┬─ gpu0 probe ─┐
//	                     ├─ ...         ├─ wait up to the timeout ─▶ timeline.Sample
//	                     ├─ gpu7 probe  │  (a probe still busy is marked late, never stacked)
//	                     ├─ host probe ─┘
//	                     └─ every Nth tick: GPU processes (slower tier)
//
// Beside the probes of the host (host.go, host_disk.go), of gputop itself
// (self.go) and of a job's process tree (tree.go), and the host's view of
// a process (procinfo.go, cgroup.go), it holds the sessions that assemble
// them (OpenSession in session.go: the one explicit list of what a live
// session samples), and the job runner of `gputop run`, whose job runs
// under a guard process (job_guard.go: this binary run again, so main
// calls JobGuardMain first) that ends it if gputop dies.
//
// Rooms of its own: probes/probe, the contract every probe implements
// (Probe, Reading; probes names them too); probes/nvidia, the GPUs through
// NVML; probes/marks, the marker socket; probes/remote, other hosts'
// streams (gputop --hosts); probes/demo, the simulated node; probes/mockmig,
// MIG handles for go-nvml's mocks; probes/owners, who each GPU is allocated
// to (the kubelet, Slurm), on the slow tier as Sample.Owners. A new source of metrics is a Probe in
// a file here or a package under probes, listed in OpenSession.
//
// Everything here reads a real machine. The demo (probes/demo) is a
// simulated one: it imports probes and hands a session a Machine, whose
// mock NVML the same NVML probe reads; probes never imports it.
package probes
