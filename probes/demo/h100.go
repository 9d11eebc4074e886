package demo

import (
	"math"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// The H100 SXM5 model: what the hardware reports for the work a script
// describes. The power cap clips the draw and pulls the SM clock down with
// it; a badly cooled GPU slows down for heat first; the clocks drop to idle
// when nothing has run for a while.

const (
	h100PowerLimit = 700.0  // W, enforced limit
	h100BoostMHz   = 1980.0 // SM clock with headroom
	h100IdleMHz    = 345.0  // SM clock when parked
	h100MemMHz     = 2619.0 // HBM3 clock, fixed
	h100ClockStep  = 15.0   // MHz between SM clock bins
	// h100Reserved is memory the driver keeps for itself: counted as used by
	// GetMemoryInfo (v1), reported apart by GetMemoryInfo_v2.
	h100Reserved = 512 << 20
	// thermalTau is how fast the die follows its power (seconds).
	thermalTau = 25.0
	// Cooling, °C above the inlet per watt: 700 W runs at about 70 °C on a
	// well-cooled GPU and 90 °C on a badly cooled one, whose inlet air is
	// also the warmest in the chassis.
	coolingNormal = 0.058
	coolingHot    = 0.088
	inletHot      = 31.0
	// Thermal slowdown starts at swThermalC and gets harder at hwThermalC.
	swThermalC = 85.0
	hwThermalC = 88.0
)

// gpuState is a load settled by the H100 model.
type gpuState struct {
	gpuLoad
	Power   float64 // W drawn
	ClockSM float64 // MHz, before any thermal slowdown
	Reasons uint64  // NVML clock-event reasons, but the thermal ones (those follow the temperature)
}

// settle applies the power cap and the GPU's thermal ceiling to a scripted
// load. u is the slot's noise: a capped GPU hovers just under its limit.
// Clocks scale with the 0.4th power of the power the GPU may draw over what
// the work wants (power goes roughly as f·V², V rising with f).
func settle(l gpuLoad, u float64) gpuState {
	s := gpuState{gpuLoad: l, Power: l.Demand, ClockSM: h100BoostMHz}
	limit, reason := h100PowerLimit, uint64(nvml.ClocksEventReasonSwPowerCap)
	if l.Ceiling > 0 && l.Ceiling < limit {
		limit, reason = l.Ceiling, 0 // held back by heat: the thermal bits say so
	}
	if l.Demand > limit {
		s.Power = limit * (0.988 + 0.01*u)
		s.ClockSM = snapClock(h100BoostMHz * math.Pow(s.Power/l.Demand, 0.4))
		s.Reasons |= reason
	}
	if l.Parked {
		s.ClockSM = h100IdleMHz
	}
	if l.Util < 0.5 { // reads as 0 %
		s.Reasons |= nvml.ClocksEventReasonGpuIdle
	}
	return s
}

// thermal returns the reasons and the SM clock factor that a die at temp °C
// adds on top of what the power cap does.
func thermal(temp float64) (uint64, float64) {
	switch {
	case temp >= hwThermalC:
		return nvml.ClocksEventReasonSwThermalSlowdown | nvml.ClocksThrottleReasonHwThermalSlowdown, 0.85
	case temp >= swThermalC:
		return nvml.ClocksEventReasonSwThermalSlowdown, 0.93
	}
	return 0, 1
}

func snapClock(mhz float64) float64 { return math.Round(mhz/h100ClockStep) * h100ClockStep }
