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
