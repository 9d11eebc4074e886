package nvidia

import (
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// The rig, for the tests in package nvidia_test (nvml_session_test.go),
// which run the probe in a session of probes, and so cannot be in this
// package: probes imports it.

// RigStart is when the rig's simulated time begins.
var RigStart = rigStart

// A100ForTest is the A100 rig (nvml_mig_a100_test.go: GPU0 split into MIG
// slices) with GPU i at util[i] % utilisation.
func A100ForTest(t *testing.T, util map[int]uint32) nvml.Interface {
	r := newA100Rig(t)
	for i, u := range util {
		r.fakes[i].util.Gpu = u
	}
	return r.srv
}

// HeldByForTest opens the probe on the rig with every GPU held by pids,
// and closes it when the benchmark ends.
func HeldByForTest(b *testing.B, pids []uint32) *NVML {
	r := newRig(b)
	for g := range r.fakes {
		for _, pid := range pids {
			r.fakes[g].compute = append(r.fakes[g].compute, nvml.ProcessInfo{Pid: pid, UsedGpuMemory: 1 << 30})
		}
	}
	n, err := OpenNVML(r.srv, r.clock)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { n.Close() })
	return n
}
