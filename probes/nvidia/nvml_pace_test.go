package nvidia

import (
	"context"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gputop-dev/gputop/timeline"
)

// pacedRig is a rig opened at DefaultPace, with GPU0's field calls
// counted by whether they ask for the ECC double-bit count (the health
// pace) and the power violation counter (the counters' pace).
type pacedRig struct {
	*rig
	n             *NVML
	mu            sync.Mutex
	eccAsks, viol int
}

func newPacedRig(t *testing.T, pace Pace) *pacedRig {
	r := &pacedRig{rig: newRig(t)}
	r.pace = pace
	d := r.devs[0]
	fields := d.GetFieldValuesFunc
	d.GetFieldValuesFunc = func(values []nvml.FieldValue) nvml.Return {
		r.mu.Lock()
		for _, v := range values {
			switch v.FieldId {
			case nvml.FI_DEV_ECC_DBE_VOL_TOTAL:
				r.eccAsks++
			case nvml.FI_DEV_PERF_POLICY_POWER:
				r.viol++
			}
		}
		r.mu.Unlock()
		return fields(values)
	}
	r.n = r.open(t)
	return r
}

// Each costly call at its pace over two minutes of 1 s ticks: GetSamples
// every 10 s, the energy counter every 2 minutes (NaN between, the layout
// unchanged), the health fields that count rare events every 30 s, the
// rest every tick.
func TestPaceMakesEachCallAtItsPace(t *testing.T) {
	r := newPacedRig(t, DefaultPace)
	var energyAt []int
	for i := range 121 {
		rd := r.collect(t, r.n)[0].Reading
		v, _, ok := metric(rd, timeline.GPUEnergy)
		if !ok {
			t.Fatal("no energy metric: the layout must not change between reads")
		}
		if !math.IsNaN(v) {
			energyAt = append(energyAt, i)
		}
		if _, _, ok := metric(rd, timeline.GPUECCUncorrected); !ok {
			t.Fatalf("tick %d: no ECC count between its reads", i)
		}
	}
	d := r.devs[0]
	for _, c := range []struct {
		call      string
		got, want int
	}{
		{"GetUtilizationRates", len(d.GetUtilizationRatesCalls()), 121},
		{"GetPowerUsage", len(d.GetPowerUsageCalls()), 121},
		{"GetSamples", len(d.GetSamplesCalls()), 13},
		{"GetTotalEnergyConsumption", len(d.GetTotalEnergyConsumptionCalls()), 2},
		{"GetFieldValues with the violation counters", r.viol, 121},
		{"GetFieldValues with the ECC counts", r.eccAsks, 5},
		{"GetMaxPcieLinkGeneration (once at open)", len(d.GetMaxPcieLinkGenerationCalls()), 1 + 5},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d calls in 121 ticks, want %d", c.call, c.got, c.want)
		}
	}
	if !slices.Equal(energyAt, []int{0, 120}) {
		t.Errorf("energy read at ticks %v, want [0 120]", energyAt)
	}
	// A tick a few ms early still makes a paced call.
	before := len(d.GetSamplesCalls())
	r.advance(t, 9*time.Second-30*time.Millisecond)
	r.collect(t, r.n)
	if len(d.GetSamplesCalls()) != before+1 {
		t.Error("a tick 30 ms early skipped GetSamples")
	}
}

// GetSamples every 10 s loses no sample: a 400 ms dip between two reads
// is in the range written at the next read, while each tick's utilisation
// is GetUtilizationRates'. Between reads the range is unknown, not made up.
func TestPaceKeepsEverySample(t *testing.T) {
	r := newPacedRig(t, DefaultPace)
	f := r.fakes[0]
	f.util = nvml.Utilization{Gpu: 97, Memory: 40}
	// 200 ms samples at 100 %, a dip to 5 % 3.4 s in, added as time passes.
	start := sampleBase
	at := func(ms int) uint64 { return start + uint64(ms)*1000 }
	add := func(from, to int) {
		for ms := from; ms < to; ms += 200 {
			v := uint32(100)
			if ms >= 3400 && ms < 3800 {
				v = 5
			}
			s := utilSamples(at(ms), v)
			f.samples = append(f.samples, s[0])
		}
	}
	add(0, 200)
	for i := range 11 {
		rd := r.collect(t, r.n)[0].Reading
		add(i*1000+200, (i+1)*1000+200)
		wantValue(t, rd, timeline.GPUUtil, 97)
		switch i {
		case 0, 10:
			if lo, _, _ := metric(rd, timeline.GPUUtilMin); i == 10 && lo != 5 {
				t.Errorf("tick 10: util min %v, want the dip's 5", lo)
			}
			wantValue(t, rd, timeline.GPUUtilMax, 100)
		default:
			wantValue(t, rd, timeline.GPUUtilMin, math.NaN())
			wantValue(t, rd, timeline.GPUUtilMax, math.NaN())
		}
	}
	if hasCheck(r.n, "wrapped") {
		t.Errorf("samples noted lost: %q", r.n.Checks())
	}
	// A probe held up past the driver's buffer: the loss is said.
	r.advance(t, 20*time.Second)
	f.samples = utilSamples(at(40_000), 50, 50)
	r.collect(t, r.n)
	if !hasCheck(r.n, "gpu0: utilization samples: the driver's buffer wrapped") {
		t.Errorf("checks: %q", r.n.Checks())
	}
}

// The ECC counts hold their last reading between reads; an Xid has them
// read on the next tick, since a double-bit error comes with Xid 48.
func TestPaceReadsHealthAfterAnXid(t *testing.T) {
	r := newPacedRig(t, DefaultPace)
	for range 3 {
		r.collect(t, r.n)
	}
	r.fakes[0].health.fields[nvml.FI_DEV_ECC_DBE_VOL_TOTAL] = 2
	wantValue(t, r.collect(t, r.n)[0].Reading, timeline.GPUECCUncorrected, 1)
	marked := make(chan struct{}, 1)
	r.n.WatchXid(func(timeline.Marker) { marked <- struct{}{} })
	r.xids <- nvml.EventData{Device: r.devs[0], EventType: nvml.EventTypeXidCriticalError, EventData: 48}
	<-marked
	wantValue(t, r.collect(t, r.n)[0].Reading, timeline.GPUECCUncorrected, 2)
	if r.eccAsks != 2 {
		t.Errorf("ECC asked %d times, want at open's first tick and after the Xid", r.eccAsks)
	}
}

// Below a second the counting fields are read on two ticks in a row each
// second: a rate takes two readings. The link states, read with them,
// hold between; the counters are unknown.
func TestPaceReadsCountersInPairs(t *testing.T) {
	r := newPacedRig(t, DefaultPace)
	var read []int
	p := r.n.Probes()[0]
	for i := range 12 {
		rd, err := p.Collect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		r.advance(t, 250*time.Millisecond)
		if v, _, _ := metric(rd, timeline.GPUViolPowerSecs); !math.IsNaN(v) {
			read = append(read, i)
		}
		if v, _, ok := metric(rd, timeline.GPUNVLinkDown); !ok || math.IsNaN(v) {
			t.Errorf("tick %d: links down %v, %v: want the last reading", i, v, ok)
		}
	}
	if !slices.Equal(read, []int{0, 1, 4, 5, 8, 9}) {
		t.Errorf("counters read at 250 ms ticks %v, want [0 1 4 5 8 9]", read)
	}
}

// The power integrated between two reads of the energy counter is held
// against its difference: a GPU where they part by more than 5 % is noted
// once; one where they agree is not.
func TestPaceChecksEnergyAgainstPower(t *testing.T) {
	r := newPacedRig(t, Pace{Energy: 30 * time.Second})
	for _, f := range r.fakes {
		f.powerMW = 300_000
	}
	for range 31 {
		r.fakes[0].energyMJ += 300_000 // agrees
		r.fakes[1].energyMJ += 400_000 // a third more than the power says
		r.collect(t, r.n)
	}
	if hasCheck(r.n, "gpu0: energy") || !hasCheck(r.n, "gpu1: energy: the power integrated over 30 s is 9000 J, the counter's difference 12000 J (-25.0 %)") {
		t.Errorf("checks: %q", r.n.Checks())
	}
}

func TestPerSecond(t *testing.T) {
	for _, c := range []struct {
		every, interval time.Duration
		want, pairs     float64
	}{
		{0, time.Second, 1, 1},
		{0, 250 * time.Millisecond, 4, 4},
		{10 * time.Second, time.Second, 0.1, 0.2},
		{10 * time.Second, 250 * time.Millisecond, 0.1, 0.2},
		{time.Second, time.Second, 1, 1},
		{time.Second, 250 * time.Millisecond, 1, 2},
		{time.Second, 2 * time.Second, 0.5, 0.5},
		{30 * time.Second, 7 * time.Second, 1.0 / 35, 2.0 / 35},
	} {
		if got := PerSecond(c.every, c.interval); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("PerSecond(%v, %v) = %v, want %v", c.every, c.interval, got, c.want)
		}
		if got := PairsPerSecond(c.every, c.interval); math.Abs(got-c.pairs) > 1e-9 {
			t.Errorf("PairsPerSecond(%v, %v) = %v, want %v", c.every, c.interval, got, c.pairs)
		}
	}
}

// The PCIe maximum keeps the health pace on a GPU whose health fields are
// given up on (GetFieldValues not supported): a pace is not a tick's.
func TestPaceWithoutHealthFields(t *testing.T) {
	r := newRig(t)
	r.pace = DefaultPace
	r.fakes[0].rets = map[string]nvml.Return{"GetFieldValues": nvml.ERROR_NOT_SUPPORTED}
	n := r.open(t)
	for range 61 {
		r.collect(t, n)
	}
	if got := len(r.devs[0].GetMaxPcieLinkGenerationCalls()); got != 1+3 {
		t.Errorf("GetMaxPcieLinkGeneration: %d calls in 61 ticks, want at open and at 0, 30 and 60 s", got)
	}
}

// The driver's failures at the default pace, as at every tick: a paced call
// that answers not supported is made once and never again; a GPU found lost
// in one is lost; without GetUtilizationRates, GetSamples is asked every
// tick and gives the tick's mean, as before the pace.
func TestPaceMeetsTheDriversFailures(t *testing.T) {
	r := newRig(t)
	r.pace = DefaultPace
	r.fakes[1].rets = map[string]nvml.Return{"GetTotalEnergyConsumption": nvml.ERROR_NOT_SUPPORTED, "GetSamples": nvml.ERROR_NOT_SUPPORTED}
	r.fakes[2].rets = map[string]nvml.Return{"GetUtilizationRates": nvml.ERROR_NOT_SUPPORTED}
	n := r.open(t)
	for i := range 25 {
		r.fakes[2].samples = append(r.fakes[2].samples, utilSamples(sampleBase+uint64(i)*1_000_000, 40, 60)...)
		res := r.collect(t, n)
		if i > 0 {
			wantValue(t, res[2].Reading, timeline.GPUUtil, 50)
			wantValue(t, res[2].Reading, timeline.GPUUtilMin, 40)
		}
		if res[1].err != nil {
			t.Fatalf("tick %d: not supported is not an error: %v", i, res[1].err)
		}
		if i == 19 {
			r.fakes[3].rets = map[string]nvml.Return{"GetSamples": nvml.ERROR_GPU_IS_LOST}
		}
		if i == 20 && (!res[3].Lost || res[3].err != ErrGPULost) {
			t.Errorf("tick 20, GetSamples answering GPU lost: lost %v, %v", res[3].Lost, res[3].err)
		}
	}
	if e, s := len(r.devs[1].GetTotalEnergyConsumptionCalls()), len(r.devs[1].GetSamplesCalls()); e != 1 || s != 1 {
		t.Errorf("not supported, asked again: energy %d times, samples %d", e, s)
	}
	if got := len(r.devs[2].GetSamplesCalls()); got != 25 {
		t.Errorf("without GetUtilizationRates, GetSamples %d times in 25 ticks, want every tick", got)
	}
	if !hasCheck(n, "gpu3: GPU is lost (in utilization samples)") {
		t.Errorf("checks: %q", n.Checks())
	}
}
