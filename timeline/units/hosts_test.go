package units

import "testing"

func TestGPUNames(t *testing.T) {
	// Two hosts of four GPUs, numbered session-wide host by host, and gpu9
	// whose host is not known (a GPU seen before its host described it).
	at := map[int]HostGPU{}
	for i := range 8 {
		host := "node3"
		if i >= 4 {
			host = "node5"
		}
		at[i] = HostGPU{Host: host, Index: i % 4}
	}
	byHost := NewGPUNames(at)
	var oneHost GPUNames
	for _, tt := range []struct {
		names GPUNames
		idx   []int
		want  string
	}{
		{oneHost, nil, "host"},
		{oneHost, []int{3}, "GPU3"},
		{oneHost, []int{0, 2, 3, 4, 5, 6, 7}, "GPU0,2-7"},
		{oneHost, []int{5, 1, 2}, "GPU1-2,5"}, // unsorted input is sorted
		{NewGPUNames(nil), []int{0, 1}, "GPU0-1"},
		{byHost, nil, "host"},
		{byHost, []int{2}, "node3 GPU2"},
		{byHost, []int{0, 1, 2, 3}, "node3 GPU0-3"},
		{byHost, []int{0, 1, 2, 3, 5}, "node3 GPU0-3, node5 GPU1"},
		{byHost, []int{5, 0, 1, 2, 3, 5}, "node3 GPU0-3, node5 GPU1"},
		{byHost, []int{4, 6, 7}, "node5 GPU0,2-3"},
		{byHost, []int{3, 4}, "node3 GPU3, node5 GPU0"}, // a run across hosts is two
		{byHost, []int{1, 9}, "node3 GPU1, GPU9"},
	} {
		if got := tt.names.Of(tt.idx); got != tt.want {
			t.Errorf("Of(%v) = %q, want %q", tt.idx, got, tt.want)
		}
	}
	if got := byHost.One(6); got != "node5 GPU2" {
		t.Errorf("One(6) = %q", got)
	}
	if oneHost.ByHost() || !byHost.ByHost() {
		t.Error("ByHost: only names given by host name by host")
	}
}

func TestHosts(t *testing.T) {
	for _, tt := range []struct {
		names []string
		want  string
	}{
		{nil, "no host"},
		{[]string{"a"}, "a"},
		{[]string{"a", "b"}, "a and b"},
		{[]string{"a", "b", "c"}, "a, b and c"},
		{[]string{"a", "b", "c", "d"}, "a, b, c and 1 more host"},
		{[]string{"a", "b", "c", "d", "e", "f"}, "a, b, c and 3 more hosts"},
	} {
		if got := Hosts(tt.names, 3); got != tt.want {
			t.Errorf("Hosts(%v) = %q, want %q", tt.names, got, tt.want)
		}
	}
}

// MIG instances are named by parent and profile, after the whole GPUs, on
// one host and on several.
func TestGPUNamesMIG(t *testing.T) {
	mig := map[int]MIGSlice{8: {Parent: 0, Profile: "3g.40gb"}, 10: {Parent: 0, Profile: "1g.10gb"}}
	one := GPUNames{}.WithMIG(mig)
	several := NewGPUNames(map[int]HostGPU{0: {"node1", 0}, 1: {"node1", 1}}).WithMIG(mig)
	for _, c := range []struct {
		names GPUNames
		idx   []int
		want  string
	}{
		{one, []int{10}, "GPU0 MIG 1g.10gb"},
		{one, []int{10, 1, 2, 8, 3}, "GPU1-3, GPU0 MIG 3g.40gb, GPU0 MIG 1g.10gb"},
		{one, []int{0, 1}, "GPU0-1"},
		{one, []int{9}, "GPU9"}, // not an instance
		{one, nil, "host"},
		{several, []int{8, 1}, "node1 GPU1, node1 GPU0 MIG 3g.40gb"},
		{GPUNames{}.WithMIG(nil), []int{10}, "GPU10"},
	} {
		if got := c.names.Of(c.idx); got != c.want {
			t.Errorf("Of(%v) = %q, want %q", c.idx, got, c.want)
		}
	}
}

// A table's GPU column names a MIG instance by its parent's number there
// and its profile, in one word.
func TestGPUNamesColumn(t *testing.T) {
	names := GPUNames{}.WithMIG(map[int]MIGSlice{10: {Parent: 8, Profile: "1g.10gb"}})
	same := func(i int) int { return i }
	onHost := func(i int) int { return i - 8 } // GPU8 is its host's GPU0
	for _, c := range []struct {
		idx    int
		number func(int) int
		want   string
	}{
		{3, same, "3"},
		{10, same, "8/1g.10gb"},
		{10, onHost, "0/1g.10gb"},
		{9, onHost, "1"},
	} {
		if got := names.Column(c.idx, c.number); got != c.want {
			t.Errorf("Column(%d) = %q, want %q", c.idx, got, c.want)
		}
	}
	if got := (GPUNames{}).Column(10, same); got != "10" {
		t.Errorf("without MIG: %q", got)
	}
	if m, ok := names.MIGOf(10); !ok || m.Profile != "1g.10gb" {
		t.Errorf("MIGOf(10) = %+v %v", m, ok)
	}
	if _, ok := names.MIGOf(3); ok {
		t.Error("GPU3 taken for an instance")
	}
}

// The count of a session's GPUs leaves its MIG slices out, and says them.
func TestGPUNamesSplit(t *testing.T) {
	three := map[int]MIGSlice{8: {0, "3g.40gb"}, 9: {0, "2g.20gb"}, 10: {0, "1g.10gb"}}
	two := map[int]MIGSlice{2: {0, "4g.40gb"}, 3: {1, "7g.80gb"}}
	byHost := NewGPUNames(map[int]HostGPU{0: {"node1", 0}, 1: {"node2", 0}})
	for _, c := range []struct {
		names GPUNames
		total int
		want  string
	}{
		{GPUNames{}, 8, "8 GPUs"},
		{GPUNames{}, 1, "1 GPU"},
		{GPUNames{}, 0, "0 GPUs"},
		{GPUNames{}.WithMIG(three), 11, "8 GPUs, GPU0 split into 3 MIG slices"},
		{GPUNames{}.WithMIG(two), 4, "2 GPUs, GPU0-1 split into 2 MIG slices"},
		{GPUNames{}.WithMIG(map[int]MIGSlice{1: {0, "7g.80gb"}}), 2, "1 GPU, GPU0 split into 1 MIG slice"},
		{byHost.WithMIG(two), 4, "2 GPUs, node1 GPU0, node2 GPU0 split into 2 MIG slices"},
	} {
		if got := c.names.Split(c.total); got != c.want {
			t.Errorf("Split(%d) = %q, want %q", c.total, got, c.want)
		}
	}
}

// MIGOf is the MIG instance GPU idx is; ok false for a whole GPU.
func (n GPUNames) MIGOf(idx int) (MIGSlice, bool) {
	m, ok := n.mig[idx]
	return m, ok
}
