package timeline

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// benchSamples is n seconds of 8 GPUs (a dozen metrics each, counters
// among them) and a 32-core host, as the sampler writes them.
func benchSamples(n int) []Sample {
	out := make([]Sample, n)
	for i := range out {
		var ms []Metric
		for gi := 0; gi < 8; gi++ {
			dev := GPUDevice(gi)
			v := 50 + 40*math.Sin(float64(i+gi)/30)
			for _, n := range []string{GPUUtil, GPUUtilMin, GPUUtilMax, GPUMemUtil, GPUSMActive, GPUSMOccupancy, GPUTensor, GPUDRAMBW, GPUMemUsed, GPUTemp, GPUClockSM, GPUThrottle} {
				ms = append(ms, g(n, dev, v))
			}
			ms = append(ms, c(GPUEnergy, dev, float64(i)*600+v), g(GPUPower, dev, 600))
		}
		for ci := 0; ci < 32; ci++ {
			ms = append(ms, c(CoreBusySecs, CoreDevice(ci), float64(i)*0.5), c(CoreTotalSecs, CoreDevice(ci), float64(i)))
		}
		ms = append(ms, c(HostCPUBusySecs, HostDevice, float64(i)*16), c(HostCPUTotSecs, HostDevice, float64(i)*32))
		var cols *Columns // the last sample's, as the sampler hands them on
		if i > 0 {
			cols = out[i-1].Columns
		}
		out[i] = Sample{At: t0.Add(time.Duration(i) * time.Second), Columns: cols}.WithMetrics(ms)
	}
	return out
}

// BenchmarkStoreAdd is one sample derived and filed: the per-second cost
// of history, and the per-sample cost of loading a replay.
func BenchmarkStoreAdd(b *testing.B) {
	samples := benchSamples(3600)
	s := NewStore(StoreOptions{RawSamples: DefaultRawSamples})
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		smp := samples[i%len(samples)]
		smp.At = t0.Add(time.Duration(i) * time.Second)
		s.Add(&smp)
		i++
	}
}

// BenchmarkDerive is one Derive of a sample against the one before.
func BenchmarkDerive(b *testing.B) {
	samples := benchSamples(2)
	var d Deriver
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		d.Next(&samples[i%2])
	}
}

// BenchmarkSeries is one sparkline's query over windows of several widths
// on a day of history at 1 s: the work stays proportional to the columns.
func BenchmarkSeries(b *testing.B) {
	s := NewStore(StoreOptions{RawSamples: DefaultRawSamples})
	for _, smp := range benchSamples(86400) {
		s.Add(&smp)
	}
	key := Key{GPUUtil, "gpu3"}
	end := s.Last()
	for _, span := range []time.Duration{30 * time.Second, time.Hour, 24 * time.Hour} {
		b.Run(fmt.Sprintf("%v-150cols", span), func(b *testing.B) {
			dst := make([]Agg, 150)
			b.ReportAllocs()
			for b.Loop() {
				s.Series(key, end.Add(-span), end, dst)
			}
		})
	}
}

// BenchmarkStoreFile64Hosts is the screen's store filing one tick of 64
// hosts of 574 values each (36,736), derived upstream with the keys of the
// tick before, as the Judge hands them to `gputop --hosts`: the raw tier
// and the bucket tiers, an hour in.
func BenchmarkStoreFile64Hosts(b *testing.B) {
	const values = 64 * 574
	keys := make([]Value, values)
	for i := range keys {
		keys[i] = Value{Key: Key{fmt.Sprintf("m%d", i%574), GPUDevice(i / 574)}, Value: math.NaN()}
	}
	d := derivedIn(&Schema{}, keys)
	nums := d.Numbers
	s := NewStore(StoreOptions{RawSamples: DefaultRawSamples})
	at := t0
	add := func(k int) {
		for i := range nums {
			nums[i] = float64((i + k) % 101)
		}
		at = at.Add(time.Second)
		s.Add(&Sample{At: at, Derived: d})
	}
	for k := range 3600 {
		add(k)
	}
	b.ReportAllocs()
	for k := 0; b.Loop(); k++ {
		add(k)
	}
}
