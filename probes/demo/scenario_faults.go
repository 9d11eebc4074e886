package demo

import "fmt"

// The faults scenario: the training run of scenario_training.go on a node
// with two hardware problems. One GPU reports a double-bit ECC error
// (Xid 48) and half a minute later falls off the bus (Xid 79): from then on
// every NVML call on it answers GPU_IS_LOST, as a real driver's do, while
// the other seven go on. Another GPU's PCIe link trained at x8 of x16 (a
// badly seated card or riser), which shows while it is busy. A third GPU's
// NVLink link starts counting CRC errors at 0:40 and goes down at 1:10
// (a failing cable or connector): its seventeen peers carry its share.

var sFaultsGPU = streamOf("faults/gpu")

const (
	faultsDBEAt  = 100.0 // s: Xid 48
	faultsLostAt = 130.0 // s: Xid 79, and the GPU is gone
	faultsCRCAt  = 40.0  // s: one NVLink link counts CRC errors
	faultsDownAt = 70.0  // s: and goes down
)

func newFaults(n noise) *scenario {
	sc := newTraining(n)
	bad := int(n.u(sFaultsGPU, 0, 0) * demoGPUs)
	narrow := (bad + 1 + int(n.u(sFaultsGPU, 0, 1)*(demoGPUs-1))) % demoGPUs
	flaky := (narrow + 1 + int(n.u(sFaultsGPU, 0, 2)*(demoGPUs-2))) % demoGPUs
	if flaky == bad {
		flaky = (flaky + 1) % demoGPUs
		if flaky == narrow {
			flaky = (flaky + 1) % demoGPUs
		}
	}
	link := int(n.u(sFaultsGPU, 0, 3) * h100Links)
	sc.name = "faults"
	sc.about = fmt.Sprintf("8-GPU training on a failing node: GPU%d reports a double-bit ECC error (Xid 48) at 1:40 "+
		"and falls off the bus (Xid 79) at 2:10 while the other seven go on; GPU%d's PCIe link runs at x8 of x16; "+
		"GPU%d's NVLink %d counts CRC errors from 0:40 and goes down at 1:10",
		bad, narrow, flaky, link)
	sc.linkFaults = []*scriptedLinkFault{{GPU: flaky, Link: link, CRCAt: faultsCRCAt, CRCPerSec: 40, DownAt: faultsDownAt}}
	sc.xids = []scriptedXid{
		{GPU: bad, At: faultsDBEAt, Code: 48, DBE: 1},
		{GPU: bad, At: faultsLostAt, Code: 79, Lost: true},
	}
	sc.lanes[narrow] = 8
	return sc
}
