package remote

import (
	"slices"

	"github.com/gputop-dev/gputop/timeline"
)

// mergedLayout gives merged samples their Sample.Layout, so that the
// Derivers downstream (the Judge's and the screen's store) know a tick's
// 37,000 keys for those of the last without comparing them one by one,
// twice each. A merged sample's keys are each present host's keys, renamed
// the same way every time (hostLayout.devices), in host order: two ticks
// whose hosts sent samples of the same Layouts, and were absent alike,
// have the same keys in the same strings.
type mergedLayout struct {
	parts []uint64 // this tick's: each host's sample's Layout, 0 if absent
	last  []uint64 // the last tick's
	id    uint64   // the last tick's merged Layout
	// recent are the last few Layouts given, most recent first, with
	// their hosts' (last and id are recent[0]'s): when a host that missed
	// a tick is back, the merged sample has the Layout of before again,
	// and the Derivers downstream find the plan they kept for it
	// (timeline.Deriver).
	recent []givenLayout
	// unknown says a host's sample this tick had no Layout: the merged
	// one has none either.
	unknown bool
}

// start begins a tick of n hosts.
func (m *mergedLayout) start(n int) {
	if len(m.parts) != n {
		m.parts = make([]uint64, n)
	}
	clear(m.parts)
	m.unknown = false
}

// placed notes host i's part of this tick, of Layout layout (its sample's,
// or the one it held its place with).
func (m *mergedLayout) placed(i int, layout uint64) {
	if layout == 0 {
		m.unknown = true
	}
	m.parts[i] = layout
}

// end is the Layout of this tick's sample: the last tick's where its hosts
// sent the same, a new one where not, 0 where a host's was unknown.
func (m *mergedLayout) end() uint64 {
	if m.unknown {
		m.id = 0
		return 0
	}
	if m.id != 0 && slices.Equal(m.parts, m.last) {
		return m.id
	}
	at := slices.IndexFunc(m.recent, func(g givenLayout) bool { return slices.Equal(g.parts, m.parts) })
	if at < 0 {
		// A new one, in the place of the least recent.
		if len(m.recent) < recentLayouts {
			m.recent = append(m.recent, givenLayout{})
		}
		at = len(m.recent) - 1
		m.recent[at] = givenLayout{parts: append(m.recent[at].parts[:0], m.parts...), id: timeline.NewLayout()}
	}
	g := m.recent[at]
	copy(m.recent[1:at+1], m.recent[:at])
	m.recent[0] = g
	m.id, m.last = g.id, g.parts
	return m.id
}

// givenLayout is a merged Layout and its hosts' Layouts.
type givenLayout struct {
	parts []uint64
	id    uint64
}

// recentLayouts is how many merged Layouts are remembered: the full set of
// hosts and a few absences.
const recentLayouts = 4
