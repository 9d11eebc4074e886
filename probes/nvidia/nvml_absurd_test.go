package nvidia

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// A driver that answers with its "not available" sentinels (every bit of a
// 32-bit power, temperature or clock set) or an energy counter that leaps
// reaches the sample as it read, raw; what the screen, the file's readers
// and /metrics see of it is a gap, said in a note, never 4.3 MW or
// 4.3 GHz averaged into a mean.
func TestNVMLSentinelsBecomeGapsWhereDerived(t *testing.T) {
	r := newRig(t)
	r.symbols["nvmlGpmSampleAlloc"] = true
	f := r.fakes[0]
	n := r.open(t)
	var d timeline.Deriver
	var derived [][]timeline.Value
	for tick := range 4 {
		if tick >= 1 {
			f.powerMW, f.tempC, f.clockSM = math.MaxUint32, math.MaxUint32, math.MaxUint32
		}
		if tick == 2 {
			f.energyMJ = math.MaxUint64 // a leap no GPU draws
		}
		res := r.collect(t, n)[0]
		if res.err != nil {
			t.Fatal(res.err)
		}
		s := timeline.Sample{At: rigStart.Add(time.Duration(tick) * time.Second)}.WithMetrics(res.Metrics)
		nums := d.Next(&s)
		var values []timeline.Value
		for j, k := range d.Keys() {
			values = append(values, timeline.Value{Key: k, Value: nums[j]})
		}
		derived = append(derived, values)
	}
	value := func(tick int, name string) float64 {
		for _, v := range derived[tick] {
			if v.Key.Name == name && v.Key.Device == "gpu0" {
				return v.Value
			}
		}
		return math.NaN()
	}
	for _, name := range []string{timeline.GPUTemp, timeline.GPUClockSM} {
		if v := value(0, name); math.IsNaN(v) {
			t.Errorf("%s before the sentinels: a gap", name)
		}
		for tick := 1; tick < 4; tick++ {
			if v := value(tick, name); !math.IsNaN(v) {
				t.Errorf("tick %d: %s = %v, want a gap", tick, name, v)
			}
		}
	}
	// Power comes from the energy counter where it moves sanely (the rig's
	// stands still: 0 W); where it leaps, neither it nor the sentinel of
	// the gauge it overrides is a reading.
	if v := value(2, timeline.GPUPower); !math.IsNaN(v) {
		t.Errorf("power over the energy counter's leap = %v W, want a gap", v)
	}
	var notes []string
	for _, o := range d.OutOfRange() {
		notes = append(notes, o.String())
	}
	all := strings.Join(notes, "; ")
	for _, want := range []string{"power readings above 10 kW", "temp readings above 250°C", "SM clock readings above 100 GHz"} {
		if !strings.Contains(all, want) {
			t.Errorf("no note says %q: %q", want, all)
		}
	}
}
