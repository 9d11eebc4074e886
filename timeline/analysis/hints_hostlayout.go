package analysis

import (
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// hostLayout is which GPUs are on which host, from the session's
// description.
type hostLayout struct {
	names []string    // the hosts, in the description's order
	of    map[int]int // session-wide GPU index to its host's place in names
	gpus  units.GPUNames
	// split are the GPUs split by MIG whose slices are GPUs of the session:
	// the slices stand for them where GPUs are compared with each other.
	split map[int]bool
}

func newHostLayout(info timeline.SourceInfo) *hostLayout {
	l := newHostsOnly(info)
	mig := migSlices(info)
	l.gpus = l.gpus.WithMIG(mig)
	for _, s := range mig {
		if l.split == nil {
			l.split = map[int]bool{}
		}
		l.split[s.Parent] = true
	}
	return l
}

// migSlices are the session's MIG instances, for naming them.
func migSlices(info timeline.SourceInfo) map[int]units.MIGSlice {
	var out map[int]units.MIGSlice
	for _, g := range info.GPUs {
		if g.IsMIGInstance() {
			if out == nil {
				out = map[int]units.MIGSlice{}
			}
			out[g.Index] = units.MIGSlice{Parent: g.MIGParent, Profile: g.MIGProfile}
		}
	}
	return out
}

func newHostsOnly(info timeline.SourceInfo) *hostLayout {
	l := &hostLayout{of: map[int]int{}}
	if !info.MultiHost() {
		return l
	}
	groups := timeline.GroupByHost(info)
	l.names = groups.Names
	at := map[int]units.HostGPU{}
	for pos, g := range info.GPUs {
		// A GPU that names no host is not compared with the hosts.
		if g.Host == "" {
			continue
		}
		l.of[g.Index] = groups.Of[pos]
		at[g.Index] = units.HostGPU{Host: g.Host, Index: g.HostIndex}
	}
	l.gpus = units.NewGPUNames(at)
	return l
}

// GPUNamesOf names the GPUs of a session as hints, reports and the screen
// do: "GPU3" where it has one host, "node3 GPU2" where it has several.
func GPUNamesOf(info timeline.SourceInfo) units.GPUNames { return newHostLayout(info).gpus }

// hostLayout is the Engine's host layout. SetInfo comes with every sample
// on the screen, so the layout is only made again, and what was kept of
// the hosts forgotten (hostsOf), when the hosts or their GPUs changed.
func (k *frameKept) hostLayout() *hostLayout {
	if k.layout == nil || (k.stale && !k.layout.matches(k.info)) {
		k.layout = newHostLayout(k.info)
	}
	k.stale = false
	return k.layout
}

// matches says whether info describes the same hosts and GPUs.
func (l *hostLayout) matches(info timeline.SourceInfo) bool {
	n := 0
	for _, g := range info.GPUs {
		if g.Host == "" {
			continue
		}
		n++
		h, ok := l.of[g.Index]
		if !ok || l.names[h] != g.Host {
			return false
		}
		if at, _ := l.gpus.Where(g.Index); at.Index != g.HostIndex {
			return false
		}
	}
	if n != len(l.of) || (len(info.Hosts) > 0) != (len(l.names) > 0) {
		return false
	}
	for k, h := range info.Hosts {
		if k >= len(l.names) || l.names[k] != h.Name {
			return false
		}
	}
	return true
}

var oneHostLayout = &hostLayout{}

func (f *hintFrame) layout() *hostLayout {
	if f.kept == nil {
		return oneHostLayout
	}
	return f.kept.hostLayout()
}

// gpuNames names GPUs in hints' evidence: by host in a session of several.
func (f *hintFrame) gpuNames(idx []int) string { return f.layout().gpus.Of(idx) }

// namesOf is the names of the first n hosts that pick picks.
func (l *hostLayout) namesOf(n int, pick func(k int) bool) []string {
	var out []string
	for k := range n {
		if pick(k) {
			out = append(out, l.names[k])
		}
	}
	return out
}
