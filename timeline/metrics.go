package timeline

import "math"

// Metric names. Raw names are what probes write and recordings keep; display
// names are what the Store holds after Derive. A gauge's raw and display
// names are the same; a counter has a raw name and derives a display name.
const (
	// GPU gauges (device "gpuN").
	GPUUtil        = "gpu.util"         // %, NVML's utilisation at the tick (coarse: any kernel running)
	GPUUtilMin     = "gpu.util.min"     // %, lowest of NVML's sub-second samples since they were last read (every 10 s)
	GPUUtilMax     = "gpu.util.max"     // %, highest of those samples
	GPUMemUtil     = "gpu.mem_util"     // %, memory controller busy
	GPUSMActive    = "gpu.sm_active"    // %, GPM: share of SMs busy (profiling-grade)
	GPUSMOccupancy = "gpu.sm_occupancy" // %, GPM: resident warps / maximum
	GPUTensor      = "gpu.tensor"       // %, GPM: any tensor pipe active
	GPUDRAMBW      = "gpu.dram_bw"      // %, GPM: DRAM bandwidth used / peak
	GPUMemUsed     = "gpu.mem_used"     // bytes
	GPUMemFree     = "gpu.mem_free"     // bytes free to allocate (NVML's Free: the driver's reserve is neither used nor free)
	GPUMemTotal    = "gpu.mem_total"    // bytes
	GPUPower       = "gpu.power"        // W; the driver's 1 s average, or the energy counter's rate over 5 s and more
	GPUPowerLimit  = "gpu.power_limit"  // W, enforced
	GPUTemp        = "gpu.temp"         // °C
	GPUClockSM     = "gpu.clock_sm"     // MHz
	GPUClockMem    = "gpu.clock_mem"    // MHz
	GPUThrottle    = "gpu.throttle"     // bitmask of Throttle* reasons active now
	GPUPCIeTx      = "gpu.pcie_tx"      // bytes/s, device to host
	GPUPCIeRx      = "gpu.pcie_rx"      // bytes/s, host to device

	// GPU counters.
	GPUEnergy       = "gpu.energy"        // J since driver load; derives GPUPower
	GPUPCIeTxBytes  = "gpu.pcie_tx_bytes" // bytes; derives GPUPCIeTx
	GPUPCIeRxBytes  = "gpu.pcie_rx_bytes" // bytes; derives GPUPCIeRx
	HostCPUBusySecs = "host.cpu_busy_s"   // CPU seconds not idle, all cores; with HostCPUTotalSecs derives HostCPU
	HostCPUWaitSecs = "host.cpu_iowait_s" // CPU seconds in iowait; derives HostIOWait
	HostCPUTotSecs  = "host.cpu_total_s"  // CPU seconds of every state: the denominator of the two above
	CoreBusySecs    = "cpu.busy_s"        // per core (device "cpuN"); derives CoreBusy
	CoreTotalSecs   = "cpu.total_s"       // per core: the denominator
	HostDiskRBytes  = "host.disk_read_bytes"
	HostDiskWBytes  = "host.disk_write_bytes"
	ProcCPUSecs     = "proc.cpu_s" // CPU seconds of a process tree (device "self" or "job"); derives ProcCPU

	// Host gauges (device "host").
	HostCPU       = "host.cpu"        // %, all cores
	HostIOWait    = "host.iowait"     // %, all cores
	HostLoad1     = "host.load1"      // run queue, 1 min average
	HostMemUsed   = "host.mem_used"   // bytes
	HostMemTotal  = "host.mem_total"  // bytes
	HostSwapUsed  = "host.swap_used"  // bytes
	HostSwapTotal = "host.swap_total" // bytes
	HostDiskRead  = "host.disk_read"  // bytes/s
	HostDiskWrite = "host.disk_write" // bytes/s
	CoreBusy      = "cpu.busy"        // %, one core (device "cpuN")

	// Process trees (device "self" for gputop, "job" for the wrapped job).
	ProcCPU = "proc.cpu" // % of one core
	ProcRSS = "proc.rss" // bytes

	// Sampling health (device "self").
	SampleLag      = "self.sample_lag" // seconds a tick started late
	SampleOverruns = "self.overruns"   // ticks so far that overran their interval or were skipped
)

// Devices that are not GPUs or cores.
const (
	HostDevice = "host"
	SelfDevice = "self"
	JobDevice  = "job"
)

// Throttle reasons: the bits of GPUThrottle. They follow NVML's clock-event
// reasons, without the ones that only say the GPU is idle or clocks are set
// by the user, which hold nothing back.
const (
	ThrottlePowerCap      = 1 << 0 // software power cap
	ThrottleHWSlowdown    = 1 << 1 // hardware slowdown (power brake, external)
	ThrottleSyncBoost     = 1 << 2
	ThrottleSWThermal     = 1 << 3
	ThrottleHWThermal     = 1 << 4
	ThrottleHWPowerBrake  = 1 << 5
	ThrottleBoardLimit    = 1 << 6
	ThrottleReliability   = 1 << 7
	ThrottleDisplayClocks = 1 << 8
)

// ThrottleThermal is every thermal reason.
const ThrottleThermal = ThrottleSWThermal | ThrottleHWThermal

// ThrottlePower is every power reason.
const ThrottlePower = ThrottlePowerCap | ThrottleHWPowerBrake | ThrottleHWSlowdown

// ThrottleNames gives a short name for each reason bit, in bit order.
var ThrottleNames = []string{"power cap", "hw slowdown", "sync boost", "sw thermal", "hw thermal", "power brake", "board limit", "reliability", "display"}

// Unit is how a display value is shown.
type Unit uint8

const (
	Percent Unit = iota
	Bytes
	BytesPerSec
	Watts
	Celsius
	MHz
	Count
	Seconds
	Bits
)

// Def describes a display metric: its unit and a short label for the screen.
type Def struct {
	Name  string
	Unit  Unit
	Label string
}

var defs = map[string]Def{}

func init() {
	for _, d := range []Def{
		{GPUUtil, Percent, "util"},
		{GPUUtilMin, Percent, "util min"},
		{GPUUtilMax, Percent, "util max"},
		{GPUMemUtil, Percent, "mem busy"},
		{GPUSMActive, Percent, "SM active"},
		{GPUSMOccupancy, Percent, "SM occupancy"},
		{GPUTensor, Percent, "tensor"},
		{GPUDRAMBW, Percent, "DRAM bw"},
		{GPUMemUsed, Bytes, "memory"},
		{GPUMemTotal, Bytes, "memory total"},
		{GPUMemFree, Bytes, "memory free"},
		{GPUPower, Watts, "power"},
		{GPUPowerLimit, Watts, "power limit"},
		{GPUTemp, Celsius, "temp"},
		{GPUClockSM, MHz, "SM clock"},
		{GPUClockMem, MHz, "mem clock"},
		{GPUThrottle, Bits, "throttle"},
		{GPUPCIeTx, BytesPerSec, "PCIe tx"},
		{GPUPCIeRx, BytesPerSec, "PCIe rx"},
		{HostCPU, Percent, "CPU"},
		{HostIOWait, Percent, "iowait"},
		{HostLoad1, Count, "load"},
		{HostMemUsed, Bytes, "RAM"},
		{HostMemTotal, Bytes, "RAM total"},
		{HostSwapUsed, Bytes, "swap"},
		{HostSwapTotal, Bytes, "swap total"},
		{HostDiskRead, BytesPerSec, "disk read"},
		{HostDiskWrite, BytesPerSec, "disk write"},
		{CoreBusy, Percent, "core"},
		{ProcCPU, Percent, "CPU"},
		{ProcRSS, Bytes, "RSS"},
		{SampleLag, Seconds, "sample lag"},
		{SampleOverruns, Count, "overruns"},
	} {
		defs[d.Name] = d
	}
}

// Lookup returns the definition of a display metric.
func Lookup(name string) (Def, bool) {
	d, ok := defs[name]
	return d, ok
}

// counterRule says how Derive turns a raw counter into a display value.
//
// A rate is Δvalue/Δseconds × scale. A ratio is Δvalue/Δper × scale, where
// per is another counter of the same device sampled at the same instant:
// CPU busy seconds over CPU total seconds is a CPU share that does not depend
// on how late the tick ran.
type counterRule struct {
	out   string
	per   string // "" for a rate over time
	scale float64
	// trustAfter is, for a counter whose display value shares its name
	// with a gauge, the shortest time between samples (seconds) over which
	// the counter's rate beats the gauge; over less, it only fills in where
	// the gauge has no number.
	trustAfter float64
}

// energyTrustAfter: an H100's energy counter moves in steps every 100 ms
// (measured on a real one, docs/real-gpu.md), so its rate over dt is off by
// up to 0.1 s/dt: 540 and 840 W in turn at 250 ms ticks of a steady 698 W
// GEMM, ±10 % now and then at 1 s, under 2 % from 5 s. GetPowerUsage is
// already a one-second average there, and integrating it at 1 s came within
// 0.01-0.09 % of the counter's energy (0.34 % at 250 ms). Imports scraped
// every 15 s or more keep the counter's exact rate.
const energyTrustAfter = 5

var counterRules = map[string]counterRule{
	GPUEnergy:       {out: GPUPower, scale: 1, trustAfter: energyTrustAfter},
	GPUPCIeTxBytes:  {out: GPUPCIeTx, scale: 1},
	GPUPCIeRxBytes:  {out: GPUPCIeRx, scale: 1},
	HostCPUBusySecs: {out: HostCPU, per: HostCPUTotSecs, scale: 100},
	HostCPUWaitSecs: {out: HostIOWait, per: HostCPUTotSecs, scale: 100},
	CoreBusySecs:    {out: CoreBusy, per: CoreTotalSecs, scale: 100},
	HostDiskRBytes:  {out: HostDiskRead, scale: 1},
	HostDiskWBytes:  {out: HostDiskWrite, scale: 1},
	ProcCPUSecs:     {out: ProcCPU, scale: 100},
}

// ThrottleList names the reasons set in a GPUThrottle value; empty when the
// GPU runs free, nil when unknown.
func ThrottleList(bits float64) []string {
	if math.IsNaN(bits) {
		return nil
	}
	out := []string{}
	for i, n := range ThrottleNames {
		if int(bits)&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}
