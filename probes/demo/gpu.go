package demo

import (
	"math"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// demoGPU is one scripted H100: the scenario's load for each slot settled by
// the H100 model, and a ledger of running totals for what NVML reports as
// counters (energy, PCIe bytes) or as averages between two GPM samples.
type demoGPU struct {
	index   int
	sc      *scenario
	noise   noise
	inlet   float64 // °C of the air at the GPU's inlet, on average
	cooling float64 // °C per W above the inlet
	// memUsed is what its processes hold, in bytes: scripts keep it
	// constant, as PyTorch's caching allocator does once warmed up.
	memUsed float64
	totals  *ledger[gpuTotals]
}

// gpuTotals are a GPU's running totals since the demo began (the counters
// carry an offset for the driver's uptime before that).
type gpuTotals struct {
	Energy float64 // J
	Tx, Rx float64 // PCIe bytes
	// Activity integrals in %·s, so that GPM's average between two samples
	// is their difference over the time between them.
	Util, SM, Occupancy, Tensor, DRAM float64
	Temp                              float64 // °C, the die following its power with a lag
	// NVLink bytes, and seconds the clocks were held for power and for
	// heat (NVML's violation counters).
	NVLinkTx, NVLinkRx     float64
	ViolPower, ViolThermal float64
}

var (
	sGPUInlet      = streamOf("gpu/inlet")
	sGPUInletDrift = streamOf("gpu/inlet-drift")
	sGPUSettle     = streamOf("gpu/settle")
	sGPUUptime     = streamOf("gpu/uptime")
)

func newDemoGPU(index int, sc *scenario, n noise, uptime float64) *demoGPU {
	g := &demoGPU{
		index:   index,
		sc:      sc,
		noise:   n,
		inlet:   n.between(28, 32, sGPUInlet, index, 0),
		cooling: coolingNormal,
	}
	if sc.hot[index] {
		g.inlet, g.cooling = inletHot, coolingHot
	}
	for _, p := range sc.procs {
		for _, r := range p.On {
			if r.GPU == index {
				g.memUsed += r.Mem
			}
		}
	}
	// The die starts where it would have settled under the first slot's load.
	initial := gpuTotals{
		Energy: uptime * n.between(90, 130, sGPUUptime, index, 0),
		Tx:     uptime * n.between(2e7, 4e7, sGPUUptime, index, 1),
		Rx:     uptime * n.between(1e8, 3e8, sGPUUptime, index, 2),
		Temp:   g.settledTemp(0, g.state(0).Power),
	}
	g.totals = newLedger(initial, g.addSlot)
	return g
}

// state is what the GPU does in slot k, before any thermal slowdown.
func (g *demoGPU) state(k int64) gpuState {
	return settle(g.sc.gpu(g.index, slotOf(k)), g.noise.u(sGPUSettle, g.index, k))
}

// settledTemp is where the die would settle at power watts, t seconds in:
// the inlet air drifts by up to ±0.7 °C over minutes.
func (g *demoGPU) settledTemp(t, power float64) float64 {
	return g.inlet + 0.7*g.noise.wobble(sGPUInletDrift, g.index, t, 90) + g.cooling*power
}

func (g *demoGPU) addSlot(k int64, secs float64, t *gpuTotals) {
	s := g.state(k)
	t.Energy += s.Power * secs
	t.Tx += s.Tx * secs
	t.Rx += s.Rx * secs
	t.Util += s.Util * secs
	t.SM += s.SM * secs
	t.Occupancy += s.Occupancy * secs
	t.Tensor += s.Tensor * secs
	t.DRAM += s.DRAM * secs
	// Collectives move data over NVLink while the tensor pipes work.
	t.NVLinkTx += s.Tensor / 100 * nvlinkBusy * secs
	t.NVLinkRx += s.Tensor / 100 * nvlinkBusy * secs
	if s.Reasons&(nvml.ClocksEventReasonSwPowerCap|nvml.ClocksThrottleReasonHwPowerBrakeSlowdown) != 0 {
		t.ViolPower += secs
	}
	if bits, _ := thermal(t.Temp); bits != 0 {
		t.ViolThermal += secs
	}
	t.Temp += (g.settledTemp(float64(slotStart(k))/1e6, s.Power) - t.Temp) * (1 - math.Exp(-secs/thermalTau))
}

// now is the GPU's state at us µs since the demo began, thermal slowdown
// included, with its temperature.
func (g *demoGPU) now(us int64) (s gpuState, temp float64) {
	s = g.state(slotAt(us))
	temp = g.totals.at(us).Temp
	bits, factor := thermal(temp)
	s.Reasons |= bits
	if factor < 1 {
		s.ClockSM = snapClock(s.ClockSM * factor)
	}
	return s, temp
}

// lastSecond averages f over the slots of the second before us, as NVML's
// own gauges do (utilization over its sample period, power over 1 s). In the
// first slot of the demo, it reads that slot.
func (g *demoGPU) lastSecond(us int64, f func(*gpuState) float64) float64 {
	to := slotAt(us)
	from := max(0, to-slotsPerSecond)
	if to == from {
		to++
	}
	var sum float64
	for k := from; k < to; k++ {
		s := g.state(k)
		sum += f(&s)
	}
	return sum / float64(to-from)
}

func utilOf(s *gpuState) float64 { return s.Util }

// memUtilOf is NVML's memory utilization: the share of time the memory was
// read or written, a little above the share of peak bandwidth used.
func memUtilOf(s *gpuState) float64 { return min(100, s.DRAM*1.15) }

func powerOf(s *gpuState) float64 { return s.Power }
