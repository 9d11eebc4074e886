package timeline

import (
	"math"
	"slices"
	"testing"
)

func TestGroupByHost(t *testing.T) {
	info := SourceInfo{
		Hosts: []HostInfo{{Name: "node2"}, {Name: "node1"}},
		GPUs: []GPUInfo{
			{Index: 0, Host: "node1"}, {Index: 1, Host: "node2"}, {Index: 2, Host: "node1"},
			{Index: 3, Host: "stray"},
		},
	}
	g := GroupByHost(info)
	if want := []string{"node2", "node1", "stray"}; !slices.Equal(g.Names, want) {
		t.Fatalf("names %v, want %v: the description's order, then a host only a GPU names", g.Names, want)
	}
	if !slices.Equal(g.GPUs[0], []int{1}) || !slices.Equal(g.GPUs[1], []int{0, 2}) || !slices.Equal(g.GPUs[2], []int{3}) {
		t.Errorf("GPUs by host %v", g.GPUs)
	}
	if want := []int{1, 0, 1, 2}; !slices.Equal(g.Of, want) {
		t.Errorf("host of each GPU %v, want %v", g.Of, want)
	}
	if g := GroupByHost(SourceInfo{}); len(g.Names) != 0 || len(g.Of) != 0 {
		t.Errorf("an empty session has hosts: %+v", g)
	}
}

func TestSumHost(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		gpus []GPUFigures
		want HostFigures
	}{
		{
			name: "no GPUs: every figure unknown",
			want: HostFigures{UtilMean: nan, UtilLowest: nan, LowestGPU: -1, SMActiveMean: nan, Power: nan,
				Energy: nan, MemUsed: nan, MemTotal: nan, MemPeak: nan, MemPeakTotal: nan},
		},
		{
			name: "a GPU without readings is counted, not averaged in",
			gpus: []GPUFigures{
				{Index: 4, Util: 90, SMActive: 80, Power: 600, Energy: 10, MemUsed: 60, MemTotal: 80, Busy: true},
				{Index: 5, Util: nan, SMActive: nan, Power: nan, Energy: nan, MemUsed: nan, MemTotal: nan},
				{Index: 6, Util: 10, SMActive: nan, Power: 100, Energy: nan, MemUsed: 70, MemTotal: 94},
			},
			want: HostFigures{GPUs: 3, Known: 2, Busy: 1, UtilMean: 50, UtilLowest: 10, LowestGPU: 6,
				SMActiveMean: 80, Power: 700, Energy: 10, MemUsed: 130, MemTotal: 174, MemPeak: 70, MemPeakTotal: 94},
		},
		{
			name: "ties keep the first GPU as the lowest",
			gpus: []GPUFigures{
				{Index: 0, Util: 20, SMActive: nan, Power: nan, Energy: nan, MemUsed: nan, MemTotal: nan},
				{Index: 1, Util: 20, SMActive: nan, Power: nan, Energy: nan, MemUsed: nan, MemTotal: nan},
			},
			want: HostFigures{GPUs: 2, Known: 2, UtilMean: 20, UtilLowest: 20, LowestGPU: 0, SMActiveMean: nan,
				Power: nan, Energy: nan, MemUsed: nan, MemTotal: nan, MemPeak: nan, MemPeakTotal: nan},
		},
	}
	same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, w := SumHost(tt.gpus), tt.want
			ok := g.GPUs == w.GPUs && g.Known == w.Known && g.Busy == w.Busy && g.LowestGPU == w.LowestGPU
			for _, p := range [][2]float64{{g.UtilMean, w.UtilMean}, {g.UtilLowest, w.UtilLowest},
				{g.SMActiveMean, w.SMActiveMean}, {g.Power, w.Power}, {g.Energy, w.Energy},
				{g.MemUsed, w.MemUsed}, {g.MemTotal, w.MemTotal}, {g.MemPeak, w.MemPeak},
				{g.MemPeakTotal, w.MemPeakTotal}} {
				ok = ok && same(p[0], p[1])
			}
			if !ok {
				t.Errorf("SumHost = %+v\nwant      %+v", g, w)
			}
		})
	}
}
