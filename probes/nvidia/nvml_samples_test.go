package nvidia

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

func valueBytes(f func(b []byte)) [8]byte {
	var b [8]byte
	f(b[:])
	return b
}

func TestDecodeValue(t *testing.T) {
	e := binary.NativeEndian
	for _, tc := range []struct {
		name string
		vt   nvml.ValueType
		b    [8]byte
		want float64
		ok   bool
	}{
		{"double", nvml.VALUE_TYPE_DOUBLE, valueBytes(func(b []byte) { e.PutUint64(b, math.Float64bits(42.5)) }), 42.5, true},
		{"double NaN", nvml.VALUE_TYPE_DOUBLE, valueBytes(func(b []byte) { e.PutUint64(b, math.Float64bits(math.NaN())) }), math.NaN(), false},
		{"double Inf", nvml.VALUE_TYPE_DOUBLE, valueBytes(func(b []byte) { e.PutUint64(b, math.Float64bits(math.Inf(-1))) }), math.Inf(-1), false},
		// The upper bytes of a smaller member are whatever was there: ignored.
		{"unsigned int", nvml.VALUE_TYPE_UNSIGNED_INT, valueBytes(func(b []byte) { e.PutUint32(b, 97); b[7] = 0xff }), 97, true},
		{"unsigned long", nvml.VALUE_TYPE_UNSIGNED_LONG, valueBytes(func(b []byte) { e.PutUint64(b, 1<<40) }), 1 << 40, true},
		{"unsigned long long", nvml.VALUE_TYPE_UNSIGNED_LONG_LONG, valueBytes(func(b []byte) { e.PutUint64(b, 123456789012) }), 123456789012, true},
		{"signed long long", nvml.VALUE_TYPE_SIGNED_LONG_LONG, valueBytes(func(b []byte) { e.PutUint64(b, uint64(1<<64-5)) }), -5, true},
		{"signed int", nvml.VALUE_TYPE_SIGNED_INT, valueBytes(func(b []byte) { e.PutUint32(b, uint32(1<<32-7)) }), -7, true},
		{"unsigned short", nvml.VALUE_TYPE_UNSIGNED_SHORT, valueBytes(func(b []byte) { e.PutUint16(b, 1500); b[2] = 9 }), 1500, true},
		{"unknown type", nvml.VALUE_TYPE_COUNT, [8]byte{1}, math.NaN(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := decodeValue(tc.vt, tc.b)
			if ok != tc.ok || (ok && got != tc.want) {
				t.Errorf("decodeValue = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestSummarizeSamples(t *testing.T) {
	uint32Samples := func(ts []uint64, vs []uint32) []nvml.Sample {
		out := make([]nvml.Sample, len(ts))
		for i := range ts {
			out[i].TimeStamp = ts[i]
			binary.NativeEndian.PutUint32(out[i].SampleValue[:4], vs[i])
		}
		return out
	}
	b := sampleBase
	for _, tc := range []struct {
		name           string
		samples        []nvml.Sample
		lastSeen       uint64
		count          int
		mean, min, max float64
		newest         uint64
	}{
		{"none", nil, b, 0, math.NaN(), math.NaN(), math.NaN(), 0},
		{"since the last tick", uint32Samples([]uint64{b + 1, b + 2, b + 3}, []uint32{10, 20, 60}), b, 3, 30, 10, 60, b + 3},
		{"older ones left out", uint32Samples([]uint64{b - 5, b + 2}, []uint32{99, 20}), b, 1, 20, 20, 20, b + 2},
		// Out of order, as a ring buffer can be: newest is still the maximum.
		{"unordered", uint32Samples([]uint64{b + 9, b + 2}, []uint32{40, 0}), b, 2, 20, 0, 40, b + 9},
		{"out of range dropped", uint32Samples([]uint64{b + 1, b + 2}, []uint32{101, 50}), b, 1, 50, 50, 50, b + 2},
		{"only nonsense", uint32Samples([]uint64{b + 1}, []uint32{400}), b, 0, math.NaN(), math.NaN(), math.NaN(), b + 1},
		// First tick: NVML's whole buffer comes back; keep its newest second.
		{"first tick", uint32Samples([]uint64{b, b + 500_000, b + 1_200_000, b + 1_900_000}, []uint32{0, 0, 40, 60}), 0, 2, 50, 40, 60, b + 1_900_000},
		// A real H100's driver returns the buffer's unfilled slots too, with
		// time stamp 0 and value 0 (72 entries, some empty, on 2026-11-27):
		// they are no samples.
		{"first tick, empty slots", uint32Samples([]uint64{0, 0, b + 1_200_000, 0, b + 1_900_000}, []uint32{0, 0, 40, 0, 60}), 0, 2, 50, 40, 60, b + 1_900_000},
		{"first tick, empty slots and one sample", uint32Samples([]uint64{0, 0, 400_000}, []uint32{0, 0, 80}), 0, 1, 80, 80, 80, 400_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := summarizeSamples(nvml.VALUE_TYPE_UNSIGNED_INT, tc.samples, tc.lastSeen)
			same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
			if s.count != tc.count || !same(s.mean, tc.mean) || !same(s.min, tc.min) || !same(s.max, tc.max) || s.newest != tc.newest {
				t.Errorf("got %+v, want count %d mean %v min %v max %v newest %d", s, tc.count, tc.mean, tc.min, tc.max, tc.newest)
			}
		})
	}
}

// FuzzDecodeValue feeds NVML's value union arbitrary bytes and types: it
// must never panic, and a value it accepts is a finite number.
func FuzzDecodeValue(f *testing.F) {
	f.Add(uint32(nvml.VALUE_TYPE_DOUBLE), uint64(math.Float64bits(12.5)))
	f.Add(uint32(nvml.VALUE_TYPE_UNSIGNED_INT), uint64(97))
	f.Add(uint32(nvml.VALUE_TYPE_SIGNED_LONG_LONG), uint64(math.MaxUint64))
	f.Fuzz(func(t *testing.T, vt uint32, raw uint64) {
		var b [8]byte
		binary.NativeEndian.PutUint64(b[:], raw)
		v, ok := decodeValue(nvml.ValueType(vt), b)
		if ok && (math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Errorf("accepted %v", v)
		}
		if !ok && vt < uint32(nvml.VALUE_TYPE_COUNT) && vt != uint32(nvml.VALUE_TYPE_DOUBLE) {
			t.Errorf("refused an integer type %d", vt)
		}
	})
}

// FuzzSummarizeSamples feeds the summary arbitrary samples: whatever the
// driver returns, the summary is an ordered min ≤ mean ≤ max within 0..100,
// or unknown.
func FuzzSummarizeSamples(f *testing.F) {
	f.Add(uint32(nvml.VALUE_TYPE_UNSIGNED_INT), uint64(0), []byte{1, 0, 0, 0, 0, 0, 0, 0, 50, 0, 0, 0, 0, 0, 0, 0})
	f.Add(uint32(nvml.VALUE_TYPE_DOUBLE), uint64(5), []byte{9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x59, 0x40})
	f.Fuzz(func(t *testing.T, vt uint32, lastSeen uint64, data []byte) {
		var samples []nvml.Sample
		for len(data) >= 16 {
			var s nvml.Sample
			s.TimeStamp = binary.NativeEndian.Uint64(data[:8])
			copy(s.SampleValue[:], data[8:16])
			samples = append(samples, s)
			data = data[16:]
		}
		s := summarizeSamples(nvml.ValueType(vt), samples, lastSeen)
		if s.count == 0 {
			if !math.IsNaN(s.mean) {
				t.Errorf("no samples but mean %v", s.mean)
			}
			return
		}
		if !(0 <= s.min && s.min <= s.mean+1e-9 && s.mean <= s.max+1e-9 && s.max <= 100) {
			t.Errorf("summary %+v out of order or range", s)
		}
		if s.count > len(samples) {
			t.Errorf("count %d of %d samples", s.count, len(samples))
		}
	})
}
