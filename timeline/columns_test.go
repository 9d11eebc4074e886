package timeline

import (
	"math"
	"slices"
	"testing"
)

func TestColumnsSelectAndAppendKept(t *testing.T) {
	cols := ColumnsOf([]Metric{g(GPUUtil, "gpu0", 1), c(GPUEnergy, "gpu0", 2), g(GPUUtil, "gpu1", 3), g(HostCPU, "host", 4)})
	values := []float64{1, 2, 3, 4}
	for _, tt := range []struct {
		name     string
		rename   func(Key) (Key, bool)
		keys     []Key
		kinds    []Kind
		kept     []int
		selected []float64
	}{
		{"all kept as they are", func(k Key) (Key, bool) { return k, true },
			cols.Keys(), cols.Kinds(), nil, values},
		{"renamed, one device left out", func(k Key) (Key, bool) {
			k.Device += "@a"
			return k, k.Device != "gpu1@a"
		},
			[]Key{{GPUUtil, "gpu0@a"}, {GPUEnergy, "gpu0@a"}, {HostCPU, "host@a"}}, []Kind{Gauge, Counter, Gauge},
			[]int{0, 1, 3}, []float64{1, 2, 4}},
		{"none kept: no value, never all", func(k Key) (Key, bool) { return k, false },
			nil, nil, []int{}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, kept := cols.Select(tt.rename)
			if !slices.Equal(got.Keys(), tt.keys) || !slices.Equal(got.Kinds(), tt.kinds) {
				t.Errorf("columns %v %v, want %v %v", got.Keys(), got.Kinds(), tt.keys, tt.kinds)
			}
			if !slices.Equal(kept, tt.kept) || (kept == nil) != (tt.kept == nil) {
				t.Errorf("kept %#v, want %#v", kept, tt.kept)
			}
			if v := AppendKept(nil, values, kept); !slices.Equal(v, tt.selected) {
				t.Errorf("values %v, want %v", v, tt.selected)
			}
			// In place, as a reader bounds its own sample.
			own := slices.Clone(values)
			if v := AppendKept(own[:0], own, kept); !slices.Equal(v, tt.selected) {
				t.Errorf("values in place %v, want %v", v, tt.selected)
			}
		})
	}
}

func TestColumnsAreKeptWhileTheKeysAre(t *testing.T) {
	ms := []Metric{g(GPUUtil, "gpu0", 1), c(GPUEnergy, "gpu0", 2)}
	first := ColumnsOf(ms)
	for _, tt := range []struct {
		name string
		ms   []Metric
		same bool
	}{
		{"the same keys and kinds, other values", []Metric{g(GPUUtil, "gpu0", 5), c(GPUEnergy, "gpu0", math.NaN())}, true},
		{"another order", []Metric{c(GPUEnergy, "gpu0", 2), g(GPUUtil, "gpu0", 1)}, false},
		{"a counter read as a gauge", []Metric{g(GPUUtil, "gpu0", 1), g(GPUEnergy, "gpu0", 2)}, false},
		{"one key more", append(slices.Clone(ms), g(GPUTemp, "gpu0", 40)), false},
		{"one key less", ms[:1], false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := Sample{Columns: first}
			s.Fill(tt.ms)
			got := s.Columns
			if (got == first) != tt.same || got.Same(first) != tt.same || !got.Match(tt.ms) {
				t.Errorf("kept %v, same %v, want %v", got == first, got.Same(first), tt.same)
			}
		})
	}
	s := Sample{Columns: first}
	s.SetMetrics([]Metric{g(GPUUtil, "gpu0", 7), c(GPUEnergy, "gpu0", 8)})
	if s.Columns != first || !slices.Equal(s.Values, []float64{7, 8}) {
		t.Errorf("SetMetrics of the same keys: columns kept %v, values %v", s.Columns == first, s.Values)
	}
	if v, ok := s.Value(Key{GPUEnergy, "gpu0"}); !ok || v != 8 {
		t.Errorf("Value = %v %v, want 8", v, ok)
	}
	if _, ok := s.Value(Key{GPUTemp, "gpu0"}); ok || (*Columns)(nil).Index(Key{}) != -1 || (*Columns)(nil).Len() != 0 {
		t.Errorf("a key s lacks is found")
	}
}
