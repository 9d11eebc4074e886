package format

import (
	"math"
	"math/bits"
	"testing"
	"time"
)

func TestBestDenominator(t *testing.T) {
	for _, c := range []struct {
		v             float64
		den, n, ulps  int64
		representable bool
	}{
		{97, 1, 97, 0, true},
		{412.345, 1000, 412345, 0, true},
		{123456.78, 100, 12345678, 0, true},
		{583.0 / 6, 6, 583, 0, true},             // a mean of six integer sub-samples
		{math.Nextafter(0.3, 1), 10, 3, 1, true}, // 0.1 + 0.2 in float64: one ulp above 3/10
		{(123 * time.Microsecond).Seconds(), 1e6, 123, 0, true},
		{(123456789 * time.Nanosecond).Seconds(), 1e9, 123456789, 0, true},
		{85520809984, 1, 85520809984, 0, true},
		{-40, 1, -40, 0, true},
		{math.Pi, 0, 0, 0, false},
		{1e-300, 0, 0, 0, false},
		{math.Copysign(0, -1), 0, 0, 0, false}, // −0 is not 0/1: raw keeps its sign
		{math.Inf(1), 0, 0, 0, false},
		{1 << 60, 0, 0, 0, false}, // beyond exact integers
	} {
		den, n, ulps, ok := bestDenominator(c.v)
		if ok != c.representable || (ok && (den != c.den || n != c.n || ulps != c.ulps)) {
			t.Errorf("bestDenominator(%v) = %d, %d, %d, %v; want %d, %d, %d, %v", c.v, den, n, ulps, ok, c.den, c.n, c.ulps, c.representable)
			continue
		}
		if got := withUlps(ratio(n, den), ulps); ok && math.Float64bits(got) != math.Float64bits(c.v) {
			t.Errorf("withUlps(ratio(%d, %d), %d) = %v, want %v exactly", n, den, ulps, got, c.v)
		}
	}
}

func TestRiceAndGammaRoundTrip(t *testing.T) {
	values := []uint64{0, 1, 2, 3, 15, 16, 17, 255, 1 << 20, 1<<57 + 12345, math.MaxUint64 >> 1, math.MaxUint64}
	var w bitWriter
	for k := uint(0); k <= 58; k++ {
		for _, u := range values {
			w.rice(u, k)
			w.gamma(u % (1 << 40))
		}
	}
	// What follows the bits (the next part of a record) must come back
	// whole, however far ahead the reader took bytes.
	data := append(w.bytes(), 0xA, 0xB, 0xC)
	r := bitReader{b: data}
	for k := uint(0); k <= 58; k++ {
		for _, u := range values {
			if got := r.rice(k); got != u {
				t.Fatalf("rice(k=%d) read %d, wrote %d", k, got, u)
			}
			if got := r.gamma(); got != u%(1<<40) {
				t.Fatalf("gamma read %d, wrote %d", got, u%(1<<40))
			}
		}
	}
	if rest := r.rest(data); r.short || string(rest) != "\x0a\x0b\x0c" {
		t.Errorf("reader short %v, %x left after the bits, want 0a0b0c", r.short, rest)
	}
	r.b, r.n = r.rest(data), 0
	if r.read64(64); !r.short {
		t.Error("reading past the end did not say so")
	}
}

func TestRiceParameterFollowsTheNoise(t *testing.T) {
	for _, c := range []struct {
		sum, n uint64
		k      uint
	}{
		{0, 0, 0}, {5, 0, 0}, {0, 4, 0}, {4, 4, 0}, {5, 4, 1}, {8, 4, 1}, {9, 4, 2}, {10, 1, 4}, {1 << 40, 1, 40}, {1 << 62, 1, 58},
	} {
		s := riceStats{sum: c.sum, n: c.n}
		if got := s.k(); got != c.k {
			t.Errorf("k() with sum %d over %d = %d, want %d", c.sum, c.n, got, c.k)
		}
	}
	// k() finds k without dividing: it must agree with the mean rounded
	// up, its definition, for every count a key's stats can hold.
	byMean := func(sum, n uint64) uint {
		if n == 0 || sum <= n {
			return 0
		}
		return min(uint(bits.Len64((sum+n-1)/n-1)), 58)
	}
	for n := uint64(0); n <= 16; n++ {
		for _, sum := range []uint64{1<<62 - 1, 1 << 62, 1<<57 + 3, 1<<40 - 1, 1 << 40, 1<<40 + 1} {
			if s := (riceStats{sum: sum, n: n}); s.k() != byMean(sum, n) {
				t.Errorf("k() with sum %d over %d = %d, the mean says %d", sum, n, s.k(), byMean(sum, n))
			}
		}
		for sum := uint64(0); sum < 1<<14; sum++ {
			if s := (riceStats{sum: sum, n: n}); s.k() != byMean(sum, n) {
				t.Fatalf("k() with sum %d over %d = %d, the mean says %d", sum, n, s.k(), byMean(sum, n))
			}
		}
	}
}

// The worked example in values.go and docs/recording-format.md.
func TestWorkedExample(t *testing.T) {
	var st valueState
	var w bitWriter
	if _, isExc := st.encodeValue(412.345, false, &w, nil); !isExc || st.den != 1000 || st.last != 412345 {
		t.Fatalf("412.345 starts the key at den %d, n %d (exception %v)", st.den, st.last, isExc)
	}
	for _, want := range []uint{11, 5} {
		before := len(w.b)*8 + int(w.n)
		if _, isExc := st.encodeValue(412.350, false, &w, nil); isExc {
			t.Fatal("412.350 was stored as an exception")
		}
		if got := uint(len(w.b)*8 + int(w.n) - before); got != want {
			t.Errorf("412.350 took %d bits, want %d", got, want)
		}
	}
	quiet := 0
	for range 40 {
		before := len(w.b)*8 + int(w.n)
		st.encodeValue(412.350, false, &w, nil)
		quiet = len(w.b)*8 + int(w.n) - before
	}
	if quiet != 1 {
		t.Errorf("a value that does not move costs %d bits after a while, want 1", quiet)
	}
}
