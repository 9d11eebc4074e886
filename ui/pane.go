package ui

import (
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/keymap"
)

// The pane under the hints holds the detail graph and, where the screen
// has the rows, the process table under it. Where it has room for one of
// them only (80x24), it holds the processes, as nvitop does: what runs on
// the GPUs is what a person looks for first. tab turns it to the graph and
// then through its metrics; past the last metric it is the processes
// again. A session without process lists (an imported log) has the graph.

// detailPane is the detail pane's own state: the metric it plots, and
// whether a pane it shares with the processes shows the graph (tab), not
// the processes.
type detailPane struct {
	metric int // an index into detailMetrics
	graph  bool
}

// sharedPane says whether the graph and the processes share one pane, and
// whether it shows the processes now.
func (m *Model) sharedPane() (shared, procs bool) {
	if m.lay.Procs > 0 || m.lay.Detail < 4 || len(m.info.GPUs) == 0 {
		return false, false
	}
	_, at := m.store.ProcessesAt(m.store.Last())
	return !at.IsZero(), !at.IsZero() && !m.detail.graph
}

// viewProcsPane is the shared pane showing the processes: the selected
// GPU's health line first where it has something to say (a link down, an
// Xid, clocks held back), which the graph would have shown, then the table.
func (f *frame) viewProcsPane(rows int) []string {
	var out []string
	if l := f.paneHealth(f.at); l != "" {
		out = append(out, l)
	}
	f.hitBase += len(out)
	return append(out, f.viewProcs(rows-len(out))...)
}

// paneHealth is the selected GPU's health line over the processes in the
// shared pane, "" where it has nothing to say.
func (m *Model) paneHealth(at time.Time) string {
	_, dev, who := m.detailTarget()
	return m.healthRow(who+": ", dev, at)
}

// nextMetric is tab: the next metric the selected GPU has; in a shared
// pane, from the processes to the graph, and past the last metric back.
func (m *Model) nextMetric() {
	shared, procs := m.sharedPane()
	if procs {
		m.detail.graph = true
		return
	}
	dev := m.selectedDevice()
	for i := 1; i <= len(detailMetrics); i++ {
		j := (m.detail.metric + i) % len(detailMetrics)
		if m.store.Has(timeline.Key{Name: detailMetrics[j].name, Device: dev}) {
			if j <= m.detail.metric && shared {
				m.detail.graph = false // round the metrics: the processes again
			}
			m.detail.metric = j
			return
		}
	}
}

// detailActions are tab, which turns the detail pane through its metrics.
func (m *Model) detailActions(k *keymap.Map) []keymap.Action {
	s := &m.keys.facts
	return []keymap.Action{{Binding: &k.Metric, On: func() bool { return s.gpus && s.samples }, Do: keyDo(m.nextMetric),
		Does: does(func() bool { return s.procsInPane }, "graph", "metric")}}
}
