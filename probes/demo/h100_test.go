package demo

import (
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// The H100 model turns what the work wants into what the hardware reports.
func TestSettle(t *testing.T) {
	for _, c := range []struct {
		name         string
		load         gpuLoad
		power        [2]float64 // range
		clock        [2]float64
		reasons, not uint64
	}{
		{"under the cap runs at boost", gpuLoad{Util: 98, Demand: 620},
			[2]float64{620, 620}, [2]float64{h100BoostMHz, h100BoostMHz}, 0, nvml.ClocksEventReasonSwPowerCap},
		{"over the cap is held just under it, slower", gpuLoad{Util: 99, Demand: 1175},
			[2]float64{0.98 * h100PowerLimit, h100PowerLimit}, [2]float64{1560, 1650}, nvml.ClocksEventReasonSwPowerCap, 0},
		{"a thermal ceiling below the cap is not a power cap", gpuLoad{Util: 99, Demand: 1175, Ceiling: 640},
			[2]float64{620, 640}, [2]float64{1400, 1560}, 0, nvml.ClocksEventReasonSwPowerCap},
		{"parked idles at the lowest clock", gpuLoad{Demand: 68, Parked: true},
			[2]float64{68, 68}, [2]float64{h100IdleMHz, h100IdleMHz}, nvml.ClocksEventReasonGpuIdle, 0},
		{"a busy-waiting kernel is not idle", gpuLoad{Util: 100, SM: 2, Demand: 150},
			[2]float64{150, 150}, [2]float64{h100BoostMHz, h100BoostMHz}, 0, nvml.ClocksEventReasonGpuIdle},
	} {
		for _, u := range []float64{0, 0.5, 0.999} {
			s := settle(c.load, u)
			if s.Power < c.power[0] || s.Power > c.power[1] {
				t.Errorf("%s (u=%v): power %.1f W, want %v", c.name, u, s.Power, c.power)
			}
			if s.ClockSM < c.clock[0] || s.ClockSM > c.clock[1] || s.ClockSM != snapClock(s.ClockSM) {
				t.Errorf("%s (u=%v): SM clock %v MHz, want %v on a 15 MHz bin", c.name, u, s.ClockSM, c.clock)
			}
			if s.Reasons&c.reasons != c.reasons || s.Reasons&c.not != 0 {
				t.Errorf("%s (u=%v): reasons %#x, want %#x and not %#x", c.name, u, s.Reasons, c.reasons, c.not)
			}
		}
	}
}

func TestThermal(t *testing.T) {
	for _, c := range []struct {
		temp    float64
		reasons uint64
		factor  float64
	}{
		{70, 0, 1},
		{84.9, 0, 1},
		{85, nvml.ClocksEventReasonSwThermalSlowdown, 0.93},
		{88.5, nvml.ClocksEventReasonSwThermalSlowdown | nvml.ClocksThrottleReasonHwThermalSlowdown, 0.85},
	} {
		if r, f := thermal(c.temp); r != c.reasons || f != c.factor {
			t.Errorf("thermal(%v) = %#x, %v; want %#x, %v", c.temp, r, f, c.reasons, c.factor)
		}
	}
}

// Every script stays inside what an H100 and its host can report.
func TestScriptsStayPhysical(t *testing.T) {
	for _, name := range Scenarios {
		sc, err := buildScenario(name, newNoise(3))
		if err != nil {
			t.Fatal(err)
		}
		for k := int64(0); k < 20*60*slotsPerSecond; k += 7 {
			s := slotOf(k)
			for g := range demoGPUs {
				l := sc.gpu(g, s)
				for _, pct := range []float64{l.Util, l.SM, l.Occupancy, l.Tensor, l.DRAM} {
					if pct < 0 || pct > 100 {
						t.Fatalf("%s gpu%d slot %d: a share of %v %%", name, g, k, pct)
					}
				}
				if l.SM > l.Util+1e-9 && l.Util > 0 {
					t.Fatalf("%s gpu%d slot %d: SMs busy %v %% of the time but kernels only %v %%", name, g, k, l.SM, l.Util)
				}
				if l.Demand < 60 || l.Tx < 0 || l.Rx < 0 || l.Rx > 32e9 {
					t.Fatalf("%s gpu%d slot %d: %+v", name, g, k, l)
				}
			}
			var h hostLoad
			sc.host(s, &h)
			for c, b := range h.Core {
				if b < 0 || b > 100 {
					t.Fatalf("%s core %d slot %d: %v %% busy", name, c, k, b)
				}
			}
			if h.IOWait < 0 || h.IOWait > 100 || h.MemUsed <= 0 || h.MemUsed > demoHostMem {
				t.Fatalf("%s host slot %d: %+v", name, k, h)
			}
		}
		var mem [demoGPUs]float64
		for _, p := range sc.procs {
			for _, r := range p.On {
				mem[r.GPU] += r.Mem
			}
		}
		for g, m := range mem {
			if m+h100Reserved > 80*gib {
				t.Errorf("%s gpu%d: processes hold %.1f GiB of 80", name, g, m/gib)
			}
		}
	}
}
