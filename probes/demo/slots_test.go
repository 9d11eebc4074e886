package demo

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestSlotGrid(t *testing.T) {
	check := func(k int64) {
		if got := slotAt(slotStart(k)); got != k {
			t.Fatalf("slotAt(slotStart(%d)) = %d", k, got)
		}
		if got := slotAt(slotStart(k) - 1); k > 0 && got != k-1 {
			t.Fatalf("slotAt(slotStart(%d)-1) = %d, want the slot before", k, got)
		}
		if n := slotStart(k+1) - slotStart(k); n != 166666 && n != 166667 {
			t.Fatalf("slot %d lasts %d µs", k, n)
		}
	}
	for k := range int64(100_000) {
		check(k)
	}
	for _, k := range []int64{1 << 30, 6 * 86400 * 365, 1<<40 + 5} { // a year and more into a demo
		check(k)
	}
	for s := range int64(1000) {
		if slotStart(s*slotsPerSecond) != s*1_000_000 {
			t.Fatalf("second %d does not start a slot", s)
		}
	}
}

func TestSlotCovered(t *testing.T) {
	s := slot{K: 6, T0: 1, T1: 1.5}
	for _, c := range []struct {
		name string
		a, b float64
		want float64
	}{
		{"before", 0, 1, 0},
		{"after", 1.5, 3, 0},
		{"whole", 0, 2, 1},
		{"first half", 0.5, 1.25, 0.5},
		{"inside", 1.1, 1.2, 0.2},
		{"empty span", 1.3, 1.3, 0},
	} {
		if got := s.covered(c.a, c.b); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: covered(%v, %v) = %v, want %v", c.name, c.a, c.b, got, c.want)
		}
	}
}

// A ledger's totals at an instant are the same to the bit however it got
// there: read once, read at every slot, or read back from later on (across
// checkpoints).
func TestLedgerTotalsDependOnlyOnTime(t *testing.T) {
	rate := func(k int64) float64 { return 1 + math.Sin(float64(k)/7) + float64(k%13)/3 }
	add := func(k int64, secs float64, t *[2]float64) {
		t[0] += rate(k) * secs
		t[1] += (rate(k) - t[1]) * (1 - math.Exp(-secs/25)) // a lagging state, like temperature
	}
	fresh := func(us int64) [2]float64 { return newLedger([2]float64{1e9, 3}, add).at(us) }

	walked := newLedger([2]float64{1e9, 3}, add)
	end := int64(3*markEvery+100) * 1_000_000 / slotsPerSecond
	for us := int64(0); us <= end; us += 1_000_000 / slotsPerSecond / 3 {
		walked.at(us)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		us := rng.Int64N(end)
		if got, want := walked.at(us), fresh(us); got != want {
			t.Fatalf("at %d µs: %v after walking, %v read directly", us, got, want)
		}
	}
	// And it is the integral: a constant rate gives rate × time.
	flat := newLedger(0.0, func(_ int64, secs float64, t *float64) { *t += 2.5 * secs })
	if got := flat.at(12_345_678); math.Abs(got-2.5*12.345678) > 1e-9 {
		t.Errorf("integral of 2.5 over 12.345678 s = %v", got)
	}
}

func TestNoiseIsStatelessAndSmooth(t *testing.T) {
	a, b := newNoise(1), newNoise(1)
	s := streamOf("test/noise")
	var sum float64
	for i := range int64(10_000) {
		u := a.u(s, 3, i)
		if u < 0 || u >= 1 {
			t.Fatalf("u = %v out of [0, 1)", u)
		}
		if u != b.u(s, 3, i) {
			t.Fatal("same seed, different noise")
		}
		sum += u
	}
	if mean := sum / 10_000; math.Abs(mean-0.5) > 0.02 {
		t.Errorf("mean of u %v, want ~0.5", mean)
	}
	if a.u(s, 3, 5) == newNoise(2).u(s, 3, 5) || a.u(s, 3, 5) == a.u(s, 4, 5) || a.u(s, 3, 5) == a.u(streamOf("other"), 3, 5) {
		t.Error("seed, device and stream do not all change the noise")
	}
	for x := 0.0; x < 100; x += 0.01 {
		if d := math.Abs(a.smooth(s, 0, x+0.01, 10) - a.smooth(s, 0, x, 10)); d > 0.01 {
			t.Fatalf("smooth noise jumps by %v at %v", d, x)
		}
	}
}
