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

// placed notes host i's sample in this tick.
func (m *mergedLayout) placed(i int, s *timeline.Sample) {
	if s.Layout == 0 {
		m.unknown = true
	}
	m.parts[i] = s.Layout
}

// end is the Layout of this tick's sample: the last tick's where its hosts
// sent the same, a new one where not, 0 where a host's was unknown.
func (m *mergedLayout) end() uint64 {
	if m.unknown {
		m.id = 0
		return 0
	}
	if m.id == 0 || !slices.Equal(m.parts, m.last) {
		m.id = timeline.NewLayout()
		m.last = append(m.last[:0], m.parts...)
	}
	return m.id
}
