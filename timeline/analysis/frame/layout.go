package frame

import (
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// Layout is which GPUs are on which host, from the session's
// description.
type Layout struct {
	Names []string    // the hosts, in the description's order
	Of    map[int]int // session-wide GPU index to its host's place in names
	gpus  units.GPUNames
	// Split are the GPUs split by MIG whose slices are GPUs of the session:
	// the slices stand for them where GPUs are compared with each other.
	Split map[int]bool
}

// newHostLayout is the layout of the session info describes: its hosts,
// where it has several, and its MIG instances, named as such.
func newHostLayout(info timeline.SourceInfo) *Layout {
	l := &Layout{Of: map[int]int{}}
	multi := info.MultiHost()
	var groups timeline.HostGroups
	if multi {
		groups = timeline.GroupByHost(info)
		l.Names = groups.Names
	}
	at := map[int]units.HostGPU{}
	var mig map[int]units.MIGSlice
	for pos, g := range info.GPUs {
		if g.IsMIGInstance() {
			if mig == nil {
				mig, l.Split = map[int]units.MIGSlice{}, map[int]bool{}
			}
			mig[g.Index] = units.MIGSlice{Parent: g.MIGParent, Profile: g.MIGProfile}
			l.Split[g.MIGParent] = true
		}
		// A GPU that names no host is not compared with the hosts.
		if multi && g.Host != "" {
			l.Of[g.Index] = groups.Of[pos]
			at[g.Index] = units.HostGPU{Host: g.Host, Index: g.HostIndex}
		}
	}
	l.gpus = units.NewGPUNames(at).WithMIG(mig)
	return l
}

// GPUNamesOf names the GPUs of a session as hints, reports and the screen
// do: "GPU3" where it has one host, "node3 GPU2" where it has several.
func GPUNamesOf(info timeline.SourceInfo) units.GPUNames { return newHostLayout(info).gpus }

var oneHostLayout = &Layout{}

// Layout is the Engine's host layout (one host's, for a frame built alone
// in a test). SetInfo comes with every sample on the screen, so the layout
// is only made again, and what was kept of the hosts forgotten (hostsOf),
// when the hosts or their GPUs changed.
func (f *Frame) Layout() *Layout {
	k := f.Kept
	if k == nil {
		return oneHostLayout
	}
	if k.layout == nil || (k.stale && !k.layout.matches(k.info)) {
		k.layout = newHostLayout(k.info)
	}
	k.stale = false
	return k.layout
}

// matches says whether info describes the same hosts and GPUs.
func (l *Layout) matches(info timeline.SourceInfo) bool {
	n := 0
	for _, g := range info.GPUs {
		if g.Host == "" {
			continue
		}
		n++
		h, ok := l.Of[g.Index]
		if !ok || l.Names[h] != g.Host {
			return false
		}
		if at, _ := l.gpus.Where(g.Index); at.Index != g.HostIndex {
			return false
		}
	}
	if n != len(l.Of) || (len(info.Hosts) > 0) != (len(l.Names) > 0) {
		return false
	}
	for k, h := range info.Hosts {
		if k >= len(l.Names) || l.Names[k] != h.Name {
			return false
		}
	}
	return true
}

// GPUNames names GPUs in hints' evidence: by host in a session of several.
func (f *Frame) GPUNames(idx []int) string { return f.Layout().gpus.Of(idx) }

// NamesOf is the names of the first n hosts that pick picks.
func (l *Layout) NamesOf(n int, pick func(k int) bool) []string {
	var out []string
	for k := range n {
		if pick(k) {
			out = append(out, l.Names[k])
		}
	}
	return out
}
