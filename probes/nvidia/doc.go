// Package nvidia reads NVIDIA GPUs through NVML: OpenNVML initialises the
// library once and enumerates the GPUs (and their MIG compute instances),
// and the NVML it returns hands the session one probe per GPU, the slower
// process probe, and the Xid event watcher. It works on go-nvml's
// nvml.Interface, so the demo (probes/demo) and the tests hand it
// go-nvml's mock servers and it cannot tell. nvml.go's doc comment lists
// every NVML call it makes, in order.
//
// It implements the probe contract of probes/probe and imports only that,
// timeline, units and go-nvml: probes imports it (OpenSession lists its
// probes), so it can never import probes. It is not named nvml because
// every file here and most of its callers also import go-nvml's nvml.
//
// Files: nvml.go (the NVML type and its calls), nvml_open.go (Init and
// the symbols a driver may lack), nvml_gpu.go (a GPU's probe), nvml_pace.go
// (how often it makes each costly call), nvml_gpm.go
// (SM activity on Hopper and newer), nvml_mig.go (MIG instances),
// nvml_health.go and nvml_nvlink.go (field values), nvml_events.go (Xid),
// nvml_procs.go (the process probe), nvml_samples.go, nvml_busid.go,
// nvml_return.go (what each return means), nvml_env.go (/dev/nvidia*),
// nvml_cost.go and nvml_cost_calls.go (what each of those calls costs, for
// the hidden `gputop nvml-bench`: docs/real-gpu.md), nvml_cost_predict.go
// (what the schedule then costs a GPU each second).
package nvidia
