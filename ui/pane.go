package ui

import (
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/keymap"
)

// The pane under the hints holds the detail graph and, where the screen
// has the rows, the process table under it. Where it has room for one of
// them only (80x24), it holds the processes, as nvitop does: what runs on
// the GPUs is what a person looks for first. tab turns it to the graph and
// then through its metrics; past the last metric it is the processes
// again. A session without process lists (an imported log) has the graph.

// sharedPane says whether the graph and the processes share one pane.
func (m *Model) sharedPane() bool {
	if m.lay.Procs > 0 || m.lay.Detail < 4 || len(m.info.GPUs) == 0 {
		return false
	}
	_, at := m.store.ProcessesAt(m.store.Last())
	return !at.IsZero()
}

// procsInPane says whether the shared pane shows the processes now.
func (m *Model) procsInPane() bool { return !m.paneGraph && m.sharedPane() }

// viewProcsPane is the shared pane showing the processes: the selected
// GPU's health line first where it has something to say (a link down, an
// Xid, clocks held back), which the graph would have shown, then the table.
func (m *Model) viewProcsPane(f *frame, rows int) []string {
	var out []string
	_, dev, who := m.detailTarget()
	if text, bad := m.healthLine(dev, f.at); text != "" {
		k := m.theme.Dim
		if bad {
			k = m.theme.Warn
		}
		out = append(out, m.newLine(m.width).Add(" "+who+": "+text, k).String())
	}
	m.hitBase += len(out)
	return append(out, m.viewProcs(f, rows-len(out))...)
}

// nextMetric is tab: the next metric the selected GPU has; in a shared
// pane, from the processes to the graph, and past the last metric back.
func (m *Model) nextMetric() {
	if m.sharedPane() && !m.paneGraph {
		m.paneGraph = true
		return
	}
	dev := m.selectedDevice()
	for i := 1; i <= len(detailMetrics); i++ {
		j := (m.metric + i) % len(detailMetrics)
		if m.store.Has(timeline.Key{Name: detailMetrics[j].name, Device: dev}) {
			if j <= m.metric && m.sharedPane() {
				m.paneGraph = false // round the metrics: the processes again
			}
			m.metric = j
			return
		}
	}
}

// detailActions are tab, which turns the detail pane through its metrics.
func detailActions(k *keymap.Map) []action {
	return []action{{b: &k.Metric, on: func(s *keyFacts) bool { return s.gpus && s.samples }, do: keyDo((*Model).nextMetric),
		does: func(s *keyFacts) string {
			if s.procsInPane {
				return "graph"
			}
			return "metric"
		}}}
}
