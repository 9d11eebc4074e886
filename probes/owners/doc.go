// Package owners finds who each GPU is allocated to: a Kubernetes pod's
// container, through the kubelet's pod-resources API (kubernetes.go), or a
// Slurm job, through what Slurm leaves on the node (slurm.go: its cgroup
// tree and the job's environment, or the per-GPU job-mapping files a
// prolog writes, as DCGM's HPC job mapping reads them).
//
//	slow tier ─▶ Probe.Collect ─┬─ kubelet.sock: List ─┐
//	                            └─ cgroup, /proc, map ─┴─▶ []timeline.Owner ─▶ Sample.Owners
//
// NVML sees processes, not allocations; an allocated GPU with no process
// on it is the waste this names. A node without Kubernetes or Slurm costs
// a stat a minute: a source found missing is looked for again only after
// a minute, and its absence is one line of Checks, never an error.
//
// It imports the vocabulary, the probe contract and the kubelet's API with
// its gRPC client; never probes, which lists it.
package owners
