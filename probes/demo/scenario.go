package demo

import (
	"fmt"
	"strings"

	"github.com/gputop-dev/gputop/timeline"
)

// A scenario is a script for the demo's eight H100s and its host: what each
// GPU and each host core does in every slot of 1/6 s, which processes hold
// the GPUs, and what it is meant to show. Scripts say what the work is (how
// much of the slot has a kernel running, how many SMs are busy, how many
// watts the work would draw at full clock); the H100 model (h100.go) turns
// that into what the hardware reports.
type scenario struct {
	name string
	// about is one line for the screen, the recording's note and the
	// report: what the scenario shows, in the user's terms. The seed report
	// or trace a script follows is named in its comments, never here.
	about string
	gpu   func(g int, s slot) gpuLoad
	host  func(s slot, h *hostLoad)
	procs []scriptedProc
	// hot marks GPUs with poor cooling (behind the others in the airflow):
	// they run 15-20 °C hotter at the same power.
	hot [demoGPUs]bool
	// xids are the Xid errors the script raises (health.go); a fatal one
	// can take its GPU off the bus for good.
	xids []scriptedXid
	// lanes, where set, is the PCIe width a GPU's link trained at: x16
	// when 0.
	lanes [demoGPUs]int
	// linkFaults are failing NVLink links (nvlink.go), at most one a GPU.
	linkFaults []*scriptedLinkFault
	// mig, where set, splits a GPU into MIG instances (mig.go), and
	// migLoad is what the work in slice i of that GPU does in a slot. At
	// most one GPU is split.
	mig     [demoGPUs][]migSlice
	migLoad func(i int, s slot) gpuLoad
	// owners, where set, are who each GPU is allocated to (a pod, a Slurm
	// job), as probes/owners reads them on a real node.
	owners []timeline.Owner
}

// Scenarios lists the scenario names in display order.
var Scenarios = []string{"training", "input-bound", "imbalance", "cpu-fallback", "throttle", "checkpoint", "faults", "mig",
	"allocated"}

// scenarioBuilders builds each scenario from the demo's noise; it has one
// entry per name in Scenarios (a test holds them together).
var scenarioBuilders = map[string]func(n noise) *scenario{
	"training":     newTraining,
	"input-bound":  newInputBound,
	"imbalance":    newImbalance,
	"cpu-fallback": newCPUFallback,
	"throttle":     newThrottle,
	"checkpoint":   newCheckpoint,
	"faults":       newFaults,
	"mig":          newMIG,
	"allocated":    newAllocated,
}

func buildScenario(name string, n noise) (*scenario, error) {
	build, ok := scenarioBuilders[name]
	if !ok {
		return nil, fmt.Errorf("unknown demo scenario %q (valid: %s)", name, strings.Join(Scenarios, ", "))
	}
	return build(n), nil
}

// demoGPUs is the size of go-nvml's dgxh100 mock server, which every script
// is written for.
const demoGPUs = 8

// gpuLoad is what a script says one GPU does in one slot.
type gpuLoad struct {
	Util      float64 // %, share of the slot with a kernel running (NVML's utilization)
	SM        float64 // %, share of SMs busy (GPM)
	Occupancy float64 // %, resident warps / maximum (GPM)
	Tensor    float64 // %, any tensor pipe active (GPM)
	DRAM      float64 // %, DRAM bandwidth / peak (GPM)
	Demand    float64 // W the work would draw at full boost clock
	// Ceiling, if set, is a power the GPU cannot hold above for thermal
	// reasons (below the power cap): a badly cooled GPU slows down first.
	Ceiling float64
	Tx, Rx  float64 // PCIe bytes/s, device to host and host to device
	// Parked says the GPU has had nothing to do for a while, so the driver
	// has dropped its clocks to idle.
	Parked bool
}

// blend mixes two loads: a slot that is share c busy and 1-c idle.
func blend(busy, idle gpuLoad, c float64) gpuLoad {
	mixf := func(a, b float64) float64 { return b + (a-b)*c }
	return gpuLoad{
		Util:      mixf(busy.Util, idle.Util),
		SM:        mixf(busy.SM, idle.SM),
		Occupancy: mixf(busy.Occupancy, idle.Occupancy),
		Tensor:    mixf(busy.Tensor, idle.Tensor),
		DRAM:      mixf(busy.DRAM, idle.DRAM),
		Demand:    mixf(busy.Demand, idle.Demand),
		Ceiling:   busy.Ceiling,
		Tx:        mixf(busy.Tx, idle.Tx),
		Rx:        mixf(busy.Rx, idle.Rx),
		Parked:    busy.Parked && idle.Parked,
	}
}

// hostLoad is what a script says the host does in one slot.
type hostLoad struct {
	Core    [demoCores]float64 // % busy, per core
	IOWait  float64            // % of all CPU time waiting for I/O
	Read    float64            // disk bytes/s
	Write   float64            // disk bytes/s
	MemUsed float64            // bytes
}

// scriptedProc is one process the script runs on the GPUs.
type scriptedProc struct {
	PID     int
	User    string
	Command string
	On      []residency
	// Cores are the host cores whose busy time is this process's: its CPU %
	// is their sum, so the process table and the per-core bars agree.
	Cores []int
	RSS   float64 // bytes
	// Workload is where the process runs, as its cgroup would say.
	Workload *timeline.Workload
}

// residency is a process's hold on one GPU.
type residency struct {
	GPU  int
	Mem  float64 // bytes
	Work float64 // share of the GPU's kernel time, 0..1
	// MIG is the slice of the GPU's MIG layout (an element of the
	// scenario's mig[GPU]) the process runs in; nil on a whole GPU.
	MIG *migSlice
}

const gib = 1 << 30

func clamp(v, lo, hi float64) float64 { return min(max(v, lo), hi) }

// idleGPU is a GPU with nothing running; with memory held (a CUDA context)
// the memory keeps it a few watts above a bare idle.
func idleGPU(n noise, s stream, g int, sl slot, held bool) gpuLoad {
	w := n.between(66, 71, s, g, sl.K)
	if held {
		w += 4
	}
	return gpuLoad{Demand: w, Parked: true}
}

// ranks runs one process per GPU, PID base+rank, each on its own host core
// (the rank's main Python thread), holding mem(rank) bytes.
func ranks(base int, command string, mem func(rank int) float64, rss float64) []scriptedProc {
	procs := make([]scriptedProc, demoGPUs)
	for r := range procs {
		procs[r] = scriptedProc{
			PID:      base + r,
			User:     "ml",
			Command:  fmt.Sprintf(command, r),
			On:       []residency{{GPU: r, Mem: mem(r), Work: 1}},
			Cores:    []int{r},
			RSS:      rss,
			Workload: demoPod,
		}
	}
	return procs
}

// demoPod is where the demo's ranks run: one Kubernetes pod, as a training
// job on a shared node is (the UID is made up).
var demoPod = &timeline.Workload{Runtime: "containerd", Container: "9f2c4e1a7b3d",
	Pod: "7b1c0e2a-4d5f-4c3b-9a8e-2f6d1c0b5a49", QoS: "guaranteed"}
