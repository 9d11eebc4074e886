package importer

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

func TestParseValue(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		in    string
		unit  unit
		scale float64
		want  float64
		err   string
	}{
		{"96 %", unitPercent, 0, 96, ""},
		{"96%", unitPercent, 0, 96, ""},
		{"96", unitPercent, 0, 96, ""},
		{"305.81 W", unitWatts, 0, 305.81, ""},
		{"17.65", unitWatts, 0, 17.65, ""}, // gpt125m: header says [W], values do not
		{"17959 MiB", unitMiB, MiB, 17959 * MiB, ""},
		{"17959", unitMiB, MiB, 17959 * MiB, ""},
		{"2 GiB", unitMiB, MiB, 2 * gib, ""},
		{"1530 MHz", unitMHz, 0, 1530, ""},
		{"71", unitCelsius, 0, 71, ""},
		{"0.187", unitRatio, 0, 18.7, ""},
		{"12", unitMBps, 0, 12 * MiB, ""},
		{"1.5e3 W", unitWatts, 0, 1500, ""},
		{"-3", unitNone, 0, -3, ""},
		{"[N/A]", unitWatts, 0, nan, ""},
		{"[Not Supported]", unitPercent, 0, nan, ""},
		{"[Unknown Error]", unitPercent, 0, nan, ""},
		{"N/A", unitMiB, MiB, nan, ""},
		{"-", unitWatts, 0, nan, ""},
		{"", unitWatts, 0, nan, ""},
		{"96 W", unitPercent, 0, 0, "unexpected unit"},
		{"17959 Mi", unitMiB, MiB, 0, "unexpected unit"}, // a truncated line
		{"abc", unitWatts, 0, 0, "not a number"},
		{"Inf", unitWatts, 0, 0, "not a number"},
		{"0x10", unitNone, 0, 0, "unexpected unit"},
		{".", unitNone, 0, 0, "not a number"},
	} {
		got, err := parseValue(c.in, c.unit, c.scale)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("parseValue(%q) = %v, %v; want error %q", c.in, got, err, c.err)
			}
		case err != nil:
			t.Errorf("parseValue(%q): %v", c.in, err)
		case math.IsNaN(c.want) != math.IsNaN(got) || !math.IsNaN(c.want) && !near(got, c.want):
			t.Errorf("parseValue(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestParseTime(t *testing.T) {
	utc := func(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
		return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	}
	for _, c := range []struct {
		in    string
		want  time.Time
		zoned bool
		bad   bool
	}{
		{in: "2025/07/27 00:34:45.155", want: utc(2025, 7, 27, 0, 34, 45, 155e6)},
		{in: "2025/07/27 00:34:45", want: utc(2025, 7, 27, 0, 34, 45, 0)},
		{in: "2025-09-24T03:17:04.490Z", want: utc(2025, 9, 24, 3, 17, 4, 490e6), zoned: true},
		{in: "2025-09-24T05:17:04+02:00", want: utc(2025, 9, 24, 3, 17, 4, 0), zoned: true},
		{in: "2025-09-24 03:17:04.123456789", want: utc(2025, 9, 24, 3, 17, 4, 123456789)},
		{in: "2025-09-24 05:17:04 +0200", want: utc(2025, 9, 24, 3, 17, 4, 0), zoned: true},
		{in: "1661698242", want: utc(2022, 8, 28, 14, 50, 42, 0), zoned: true},
		{in: "1661698242500", want: utc(2022, 8, 28, 14, 50, 42, 500e6), zoned: true},
		{in: "1661698242500000", want: utc(2022, 8, 28, 14, 50, 42, 500e6), zoned: true},
		{in: "Sat Jul 26 00:34:45 2025", want: utc(2025, 7, 26, 0, 34, 45, 0)},
		{in: "2025/02/31 00:00:00", bad: true},
		{in: "2025/07/27 25:00:00", bad: true},
		{in: "12", bad: true},            // 1970: outside the years a log can have
		{in: "9999999999999", bad: true}, // ms in 2286
		{in: "yesterday", bad: true},
		{in: "2025/07/27 00:34:45 +99", bad: true},
	} {
		got, zoned, err := parseTime(c.in)
		switch {
		case c.bad:
			if err == nil {
				t.Errorf("parseTime(%q) = %v, want an error", c.in, got)
			}
		case err != nil:
			t.Errorf("parseTime(%q): %v", c.in, err)
		case !got.Equal(c.want) || zoned != c.zoned:
			t.Errorf("parseTime(%q) = %v zoned=%v, want %v zoned=%v", c.in, got, zoned, c.want, c.zoned)
		}
	}
}

func TestNormalizeHeader(t *testing.T) {
	for _, c := range []struct{ in, name, unit string }{
		{"utilization.gpu [%]", "utilization_gpu", "%"},
		{" memory.used [MiB]", "memory_used", "MiB"},
		{"power.draw (W)", "power_draw", "W"},
		{"temperature_C", "temperature_c", ""},
		{"clocks_event_reasons.hw_slowdown", "clocks_event_reasons_hw_slowdown", ""},
		{"GPU Index", "gpu_index", ""},
		{"__x--y__", "x_y", ""},
	} {
		name, unit := normalizeHeader(c.in)
		if name != c.name || unit != c.unit {
			t.Errorf("normalizeHeader(%q) = %q %q, want %q %q", c.in, name, unit, c.name, c.unit)
		}
	}
}

// TestSMIColumns documents the accepted header names: --query-gpu
// properties with and without units, their long forms, and hand-made names.
func TestSMIColumns(t *testing.T) {
	for _, c := range []struct {
		header string
		kind   columnKind
		metric string
		scale  float64
	}{
		{"timestamp", colTimestamp, "", 0},
		{"index", colIndex, "", 0},
		{"gpu_index", colIndex, "", 0}, // nanogpt
		{"name", colName, "", 0},
		{"uuid", colUUID, "", 0},
		{"pci.bus_id", colUUID, "", 0},
		{"utilization.gpu [%]", colMetric, timeline.GPUUtil, 0},
		{"utilization_gpu_percent", colMetric, timeline.GPUUtil, 0}, // nanogpt
		{"utilization.memory [%]", colMetric, timeline.GPUMemUtil, 0},
		{"memory.used [MiB]", colMetric, timeline.GPUMemUsed, MiB},
		{"memory.used", colMetric, timeline.GPUMemUsed, MiB},
		{"mem_used_gb", colMetric, timeline.GPUMemUsed, gib},
		{"memory.total [MiB]", colMetric, timeline.GPUMemTotal, MiB},
		{"memory.free [MiB]", colMemFree, "", MiB},
		{"power.draw [W]", colMetric, timeline.GPUPower, 0},
		{"power_W", colMetric, timeline.GPUPower, 0}, // nanogpt
		{"power.draw.average [W]", colMetric, timeline.GPUPower, 0},
		{"enforced.power.limit [W]", colMetric, timeline.GPUPowerLimit, 0},
		{"power.limit [W]", colMetric, timeline.GPUPowerLimit, 0},
		{"temperature.gpu", colMetric, timeline.GPUTemp, 0},
		{"temperature_C", colMetric, timeline.GPUTemp, 0}, // nanogpt
		{"clocks.sm [MHz]", colMetric, timeline.GPUClockSM, 0},
		{"clocks.current.sm [MHz]", colMetric, timeline.GPUClockSM, 0},
		{"clocks.mem [MHz]", colMetric, timeline.GPUClockMem, 0},
		{"clocks.current.memory [MHz]", colMetric, timeline.GPUClockMem, 0},
		{"clocks_event_reasons.active", colThrottle, "", 0},
		{"clocks_throttle_reasons.active", colThrottle, "", 0},
		{"clocks_throttle_reasons.hw_slowdown", colReason, "", 0},
		{"clocks_event_reasons.gpu_idle", colUnsupported, "", 0},
		{"fan.speed [%]", colIgnored, "", 0},
		{"pstate", colIgnored, "", 0},
		{"clocks.gr [MHz]", colIgnored, "", 0},
	} {
		got := lookupSMIColumn(c.header)
		if got.kind != c.kind || got.metric != c.metric || (c.scale != 0 && got.scale != c.scale) {
			t.Errorf("%q: %+v, want kind %d metric %q scale %v", c.header, got, c.kind, c.metric, c.scale)
		}
	}
}

func TestThrottleFromNVML(t *testing.T) {
	for _, c := range []struct {
		mask uint64
		want uint64
	}{
		{0x0, 0},
		{0x1, 0}, // GPU idle holds nothing back
		{0x2, 0}, // application clocks
		{0x4, timeline.ThrottlePowerCap},
		{0x8, timeline.ThrottleHWSlowdown},
		{0x20 | 0x40, timeline.ThrottleThermal},
		{0x80, timeline.ThrottleHWPowerBrake},
		{0x4 | 0x8 | 0x80, timeline.ThrottlePower},
		{0x100, timeline.ThrottleDisplayClocks},
		{0x200, timeline.ThrottleBoardLimit},
		{0x400, timeline.ThrottleReliability},
		{0x7ff, timeline.ThrottlePower | timeline.ThrottleThermal | timeline.ThrottleSyncBoost |
			timeline.ThrottleDisplayClocks | timeline.ThrottleBoardLimit | timeline.ThrottleReliability},
	} {
		if got := ThrottleFromNVML(c.mask); got != float64(c.want) {
			t.Errorf("throttleFromNVML(%#x) = %#x, want %#x", c.mask, uint64(got), c.want)
		}
	}
	for _, c := range []struct {
		in   string
		want uint64
		ok   bool
		bad  bool
	}{
		{"0x0000000000000004", 4, true, false},
		{"0X10", 16, true, false},
		{"[N/A]", 0, false, false},
		{"4", 0, false, true},
		{"0xZZ", 0, false, true},
	} {
		mask, ok, err := parseHexMask(c.in)
		if mask != c.want || ok != c.ok || (err != nil) != c.bad {
			t.Errorf("parseHexMask(%q) = %v %v %v", c.in, mask, ok, err)
		}
	}
}
