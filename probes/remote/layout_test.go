package remote

import (
	"math"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/xid"
)

// TestMergedSamplesNameTheirKeys checks Sample.Layout's promise for merged
// samples: the same Layout only where the keys are the same, in the same
// strings; another where a host is first seen; the same where a host seen
// before has nothing due (it holds its place with gaps, so the Derivers
// downstream keep their plan); none where a host's sample had none.
func TestMergedSamplesNameTheirKeys(t *testing.T) {
	s := newSource(Options{Hosts: []string{"a", "b"}, Interval: time.Second})
	for _, h := range s.hosts {
		h.info = node(2)
	}
	la, lb := timeline.NewLayout(), timeline.NewLayout()
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	tick := func(hosts ...bool) timeline.Sample {
		now = now.Add(time.Second)
		for i, h := range s.hosts {
			if i < len(hosts) && hosts[i] {
				smp := *reading(2, 50)
				smp.At = now.Add(-time.Second)
				smp.Layout = []uint64{la, lb}[i]
				h.queue = append(h.queue[:0], queued{smp, now.Add(-time.Second)})
			}
		}
		return s.merge(now)
	}
	var seen []timeline.Sample
	for _, present := range [][]bool{{true, false}, {true, false}, {true, true}, {true, true}, {true, false}, {true, true}} {
		seen = append(seen, tick(present...))
	}
	for i, smp := range seen {
		if smp.Layout == 0 {
			t.Fatalf("tick %d: no Layout", i)
		}
	}
	if seen[0].Layout != seen[1].Layout || seen[2].Layout != seen[3].Layout {
		t.Errorf("ticks alike have different Layouts: %v", layouts(seen))
	}
	if seen[1].Layout == seen[2].Layout {
		t.Errorf("a host seen for the first time kept the Layout: %v", layouts(seen))
	}
	if seen[4].Layout != seen[3].Layout || seen[5].Layout != seen[3].Layout {
		t.Errorf("a host late for a tick changed the Layout: %v", layouts(seen))
	}
	// Its place is held with gaps: no value, never the last one again.
	held := 0
	for _, m := range seen[4].Metrics {
		if _, ok := s.perHost[1].devices["gpu0"]; ok && m.Key.Device == s.perHost[1].devices["gpu0"] {
			held++
			if !math.IsNaN(m.Value) {
				t.Errorf("late host's %v = %v, want a gap (NaN)", m.Key, m.Value)
			}
		}
	}
	if held == 0 {
		t.Errorf("the late host's GPU has no place in the tick: %v", seen[4].Metrics)
	}
	for i := range seen {
		for j := range seen {
			if seen[i].Layout == seen[j].Layout && !sameKeys(seen[i], seen[j]) {
				t.Errorf("ticks %d and %d share a Layout but not their keys", i, j)
			}
		}
	}
	// A host whose samples are not named: neither is the merge.
	lb = 0
	if smp := tick(true, true); smp.Layout != 0 {
		t.Errorf("Layout %d with a host's unknown", smp.Layout)
	}
}

// A host's sample of the Layout of its last is placed under the keys it
// was renamed to then, with this sample's values and kinds: the names are
// the same as a renaming gives, the values are never the last tick's.
func TestAKnownLayoutCarriesItsNewValues(t *testing.T) {
	s := newSource(Options{Hosts: []string{"a", "b"}, Interval: time.Second})
	for _, h := range s.hosts {
		h.info = node(2)
	}
	layout := []uint64{timeline.NewLayout(), timeline.NewLayout()}
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	tick := func(util float64) timeline.Sample {
		now = now.Add(time.Second)
		for i, h := range s.hosts {
			smp := *reading(2, util+float64(i))
			smp.At, smp.Layout = now.Add(-time.Second), layout[i]
			smp.Metrics[0].Kind = timeline.Counter
			h.queue = append(h.queue[:0], queued{smp, now.Add(-time.Second)})
		}
		return s.merge(now)
	}
	first, second := tick(10), tick(70)
	if !sameKeys(first, second) {
		t.Fatalf("keys differ:\n%v\n%v", first.Metrics, second.Metrics)
	}
	var utils []float64
	for _, m := range second.Metrics {
		if m.Key.Name == "util" {
			utils = append(utils, m.Value)
		}
	}
	if want := []float64{70, 70, 71, 71}; !slices.Equal(utils, want) {
		t.Errorf("utils %v, want %v", utils, want)
	}
	if second.Metrics[0].Kind != timeline.Counter {
		t.Errorf("the first metric is a %v, want the sample's Counter", second.Metrics[0].Kind)
	}
}

func layouts(ss []timeline.Sample) []uint64 {
	var out []uint64
	for _, s := range ss {
		out = append(out, s.Layout)
	}
	return out
}

// sameKeys says whether a and b have the same keys in the same strings.
func sameKeys(a, b timeline.Sample) bool {
	return slices.EqualFunc(a.Metrics, b.Metrics, func(x, y timeline.Metric) bool {
		return x.Key == y.Key && unsafeSame(x.Key.Name, y.Key.Name) && unsafeSame(x.Key.Device, y.Key.Device)
	})
}

func unsafeSame(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }

// TestInfoIsHandedAgainUntilItChanges checks that Info hands the same lists
// while the description stands, so that the Judge's Engine knows it for
// the one it has (analysis.Engine.SetInfo), and new ones when a host
// describes itself, the old ones left as they were.
func TestInfoIsHandedAgainUntilItChanges(t *testing.T) {
	s := newSource(Options{Hosts: []string{"a", "b"}, Interval: time.Second})
	s.hosts[0].info = node(2)
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	s.merge(now)
	first, again := s.Info(), s.Info()
	if len(first.GPUs) != 2 || &first.GPUs[0] != &again.GPUs[0] || &first.Hosts[0] != &again.Hosts[0] {
		t.Fatalf("Info handed new lists for the same description: %d GPUs", len(first.GPUs))
	}
	s.hosts[1].info = node(1)
	s.merge(now.Add(time.Second))
	grown := s.Info()
	if len(grown.GPUs) != 3 || &grown.GPUs[0] == &first.GPUs[0] || &grown.Hosts[0] == &first.Hosts[0] {
		t.Errorf("a host described itself: %d GPUs, the same lists", len(grown.GPUs))
	}
	if len(first.GPUs) != 2 || first.GPUs[1].Host != "a" || first.Hosts[1].Driver != "" {
		t.Errorf("the lists handed before were changed: %+v %+v", first.GPUs, first.Hosts)
	}
}

// A host late for a tick holds its place with gaps of the same kinds as its
// series: its CPU counters stay counters, so that the host's CPU is derived
// again at its next sample. Gaps written as gauges once took every host's
// CPU out of a --hosts session for good ("no host CPU data").
func TestALateHostsGapsKeepTheirKinds(t *testing.T) {
	s := newSource(Options{Hosts: []string{"a", "b"}, Interval: time.Second})
	for _, h := range s.hosts {
		h.info = node(1)
	}
	layout := []uint64{timeline.NewLayout(), timeline.NewLayout()}
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	busy := 0.0
	tick := func(hosts ...bool) timeline.Sample {
		now = now.Add(time.Second)
		busy += 0.5
		for i, h := range s.hosts {
			if !hosts[i] {
				continue
			}
			smp := timeline.Sample{At: now.Add(-time.Second), Layout: layout[i], Metrics: []timeline.Metric{
				{Key: timeline.Key{Name: timeline.GPUUtil, Device: "gpu0"}, Value: 50},
				{Key: timeline.Key{Name: timeline.HostCPUBusySecs, Device: timeline.HostDevice}, Kind: timeline.Counter, Value: busy},
				{Key: timeline.Key{Name: timeline.HostCPUTotSecs, Device: timeline.HostDevice}, Kind: timeline.Counter, Value: float64(now.Unix())},
			}}
			h.queue = append(h.queue[:0], queued{smp, now.Add(-time.Second)})
		}
		return s.merge(now)
	}
	var d timeline.Deriver
	var ticks []timeline.Sample
	for _, present := range [][]bool{{true, true}, {true, false}, {true, true}, {true, true}} {
		ticks = append(ticks, tick(present...))
	}
	for _, m := range ticks[1].Metrics {
		if m.Key.Device == "host@b" && m.Kind != timeline.Counter {
			t.Errorf("late host's gap %v is a %v, want a Counter as in its samples", m.Key, m.Kind)
		}
	}
	var cpu float64
	for i := range ticks {
		for _, v := range d.Next(&ticks[i]) {
			if v.Key == (timeline.Key{Name: timeline.HostCPU, Device: "host@b"}) {
				cpu = v.Value
			}
		}
	}
	if cpu != 50 {
		t.Errorf("host b's CPU after its gap = %v, want 50 (half a second busy of each second)", cpu)
	}
}

// An Xid names its host's GPU ("GPU1 Xid 79"): in the session it names the
// session's (node b's GPU1 is GPU3 where each host has two), so that
// gpu-error blames b's GPU, not a's, and the same Xid on both hosts' GPU1
// is two markers, not one.
func TestAnXidNamesTheSessionsGPU(t *testing.T) {
	s := newSource(Options{Hosts: []string{"a", "b"}, Interval: time.Second})
	for _, h := range s.hosts {
		h.info = node(2)
	}
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	for _, h := range s.hosts {
		smp := *reading(2, 50)
		smp.At = now.Add(-time.Second)
		h.queue = append(h.queue[:0], queued{smp, now.Add(-time.Second)})
		h.markers = []timeline.Marker{{At: smp.At, Text: xid.MarkerText(1, 79), Origin: timeline.XidOrigin}}
	}
	var texts []string
	for _, m := range s.merge(now).Markers {
		texts = append(texts, m.Text)
	}
	if want := []string{xid.MarkerText(1, 79), xid.MarkerText(3, 79)}; !slices.Equal(texts, want) {
		t.Errorf("markers %q, want %q", texts, want)
	}
}
