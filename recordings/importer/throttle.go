package importer

import "github.com/gputop-dev/gputop/timeline"

// throttleReason ties one NVML clock-event reason bit (as nvidia-smi prints
// in clocks_event_reasons.active, formerly clocks_throttle_reasons.active)
// to its timeline.Throttle bit and to the suffix of nvidia-smi's per-reason
// column (clocks_event_reasons.sw_power_cap). NVML's GPU-idle (0x1) and
// application-clocks (0x2) reasons hold nothing back and have no bit.
type throttleReason struct {
	nvml   uint64
	bit    uint64
	column string
}

var throttleReasons = []throttleReason{
	{0x4, timeline.ThrottlePowerCap, "sw_power_cap"},
	{0x8, timeline.ThrottleHWSlowdown, "hw_slowdown"},
	{0x10, timeline.ThrottleSyncBoost, "sync_boost"},
	{0x20, timeline.ThrottleSWThermal, "sw_thermal_slowdown"},
	{0x40, timeline.ThrottleHWThermal, "hw_thermal_slowdown"},
	{0x80, timeline.ThrottleHWPowerBrake, "hw_power_brake_slowdown"},
	{0x100, timeline.ThrottleDisplayClocks, "display_clock_setting"},
	{0x200, timeline.ThrottleBoardLimit, "board_limit"},
	{0x400, timeline.ThrottleReliability, "reliability"},
}

// ThrottleFromNVML translates an NVML clock-event reasons mask into
// timeline.Throttle bits.
func ThrottleFromNVML(mask uint64) float64 {
	var bits uint64
	for _, r := range throttleReasons {
		if mask&r.nvml != 0 {
			bits |= r.bit
		}
	}
	return float64(bits)
}

// throttleColumn gives the timeline bit of a per-reason column suffix
// ("hw_slowdown"); ok is false for suffixes that hold nothing back
// ("gpu_idle", "applications_clocks_setting") or are unknown.
func throttleColumn(suffix string) (bit uint64, ok bool) {
	for _, r := range throttleReasons {
		if r.column == suffix {
			return r.bit, true
		}
	}
	return 0, false
}
