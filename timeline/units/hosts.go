package units

import (
	"slices"
	"strconv"
	"strings"
)

// HostGPU is where one GPU of a session of several hosts is: its host, and
// the index its host gives it (nvidia-smi's number there).
type HostGPU struct {
	Host  string
	Index int
}

// GPUNames names the GPUs of a session. The zero value names them as one
// host does (GPUs: "GPU0-3,5"), so a session of one host reads exactly as it
// always has. Given where each GPU is (NewGPUNames), it names them by host,
// with the index each host gives its own GPUs, hosts in the order of their
// first GPU: "node3 GPU2", "node3 GPU0-7, node5 GPU1". A GPU whose host is
// not known keeps its session-wide name, "GPU12".
//
// A MIG instance (WithMIG), a GPU of its own in the session, is named by
// its parent and profile, "GPU0 MIG 1g.10gb", after the whole GPUs.
type GPUNames struct {
	at  map[int]HostGPU
	mig map[int]MIGSlice
}

// MIGSlice is what names a MIG instance: the session-wide index of the
// physical GPU it is a slice of, and its profile ("1g.10gb").
type MIGSlice struct {
	Parent  int
	Profile string
}

// WithMIG names the GPUs of mig (session-wide index to slice) as MIG
// instances of their parents.
func (n GPUNames) WithMIG(mig map[int]MIGSlice) GPUNames {
	if len(mig) > 0 {
		n.mig = mig
	}
	return n
}

// Column is GPU idx as a table's GPU column shows it, number giving a whole
// GPU's number as the table has it (session-wide, or on its host): "3", or
// for a MIG instance its parent's number and its profile, "0/1g.10gb", one
// word.
func (n GPUNames) Column(idx int, number func(int) int) string {
	if m, ok := n.mig[idx]; ok {
		return strconv.Itoa(number(m.Parent)) + "/" + m.Profile
	}
	return strconv.Itoa(number(idx))
}

// Split says how many of total GPUs of a session are whole and how the
// rest, its MIG instances, split them, short: "8 GPUs, GPU0 split into 3
// MIG slices"; "8 GPUs" without MIG. total counts the instances too, as
// a session lists them.
func (n GPUNames) Split(total int) string {
	whole := Count(total-len(n.mig), "GPU")
	if len(n.mig) == 0 {
		return whole
	}
	parents := make([]int, 0, len(n.mig))
	for _, m := range n.mig {
		parents = append(parents, m.Parent)
	}
	slices.Sort(parents)
	return whole + ", " + n.ofWhole(slices.Compact(parents)) + " split into " + Count(len(n.mig), "MIG slice")
}

// NewGPUNames names GPUs by host; at maps each session-wide index to its
// host and its index there. An empty map names them as one host does.
func NewGPUNames(at map[int]HostGPU) GPUNames {
	if len(at) == 0 {
		return GPUNames{}
	}
	return GPUNames{at: at}
}

// ByHost says whether GPUs are named by host.
func (n GPUNames) ByHost() bool { return n.at != nil }

// Where is the host of session-wide GPU idx and its index there; ok false
// in a session of one host, or for a GPU whose host is unknown.
func (n GPUNames) Where(idx int) (HostGPU, bool) {
	hg, ok := n.at[idx]
	return hg, ok
}

// One names a single GPU: "GPU3", or "node3 GPU2".
func (n GPUNames) One(idx int) string { return n.Of([]int{idx}) }

// Of names a set of GPUs, given by session-wide index in any order, runs
// collapsed within each host: "GPU0-3,5" in a session of one host; by host
// otherwise, "node3 GPU0-7, node5 GPU1"; "host" for none (a hint about the
// host).
func (n GPUNames) Of(idx []int) string {
	if n.mig == nil {
		return n.ofWhole(idx)
	}
	var whole, migs []int
	for _, i := range idx {
		if _, ok := n.mig[i]; ok {
			migs = append(migs, i)
		} else {
			whole = append(whole, i)
		}
	}
	if len(migs) == 0 {
		return n.ofWhole(whole)
	}
	var parts []string
	if len(whole) > 0 {
		parts = append(parts, n.ofWhole(whole))
	}
	slices.Sort(migs)
	for _, i := range slices.Compact(migs) {
		m := n.mig[i]
		parts = append(parts, n.ofWhole([]int{m.Parent})+" MIG "+m.Profile)
	}
	return strings.Join(parts, ", ")
}

func (n GPUNames) ofWhole(idx []int) string {
	if n.at == nil || len(idx) == 0 {
		if !slices.IsSorted(idx) {
			idx = slices.Sorted(slices.Values(idx))
		}
		return GPUs(idx)
	}
	sorted := slices.Compact(slices.Sorted(slices.Values(idx)))
	// Hosts in the order of their first GPU in the session (the GPUs are
	// met in order); a GPU of no known host is a "host" of its own, named
	// by its session-wide index.
	type where struct {
		host  string
		known bool
	}
	type group struct {
		where
		local []int
	}
	var groups []*group
	byHost := map[where]*group{}
	for _, i := range sorted {
		hg, known := n.at[i]
		if !known {
			hg.Index = i
		}
		g := byHost[where{hg.Host, known}]
		if g == nil {
			g = &group{where: where{hg.Host, known}}
			byHost[g.where] = g
			groups = append(groups, g)
		}
		g.local = append(g.local, hg.Index)
	}
	var b strings.Builder
	for k, g := range groups {
		if k > 0 {
			b.WriteString(", ")
		}
		slices.Sort(g.local)
		if g.known {
			b.WriteString(g.host)
			b.WriteByte(' ')
		}
		b.WriteString(GPUs(slices.Compact(g.local)))
	}
	return b.String()
}

// Hosts lists host names as a sentence does, at most most of them and how
// many more: "node1", "node1 and node2", "node1, node2 and node4",
// "node1, node2, node3 and 5 more hosts".
func Hosts(names []string, most int) string {
	most = max(most, 1)
	switch {
	case len(names) == 0:
		return "no host"
	case len(names) == 1:
		return names[0]
	case len(names) <= most:
		return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	return strings.Join(names[:most], ", ") + " and " + Count(len(names)-most, "more host", "more hosts")
}
