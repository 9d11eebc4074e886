package ui

import (
	"strings"
	"testing"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/config"
)

// The settings file's metric and layout are where the screen starts.
func TestSettingsShapeTheScreen(t *testing.T) {
	m := newTestModel(t, timeline.Live, fixtureSamples(120), 120, 40, Options{Settings: config.Settings{Metric: "power", Layout: "compact"}})
	if m.lay.GPURows != 1 {
		t.Errorf("layout = compact: one row a GPU at 120x40, not %d", m.lay.GPURows)
	}
	if !strings.Contains(screen(m), " GPU0 power ") {
		t.Errorf("metric = power: the detail graph starts on power:\n%s", screen(m))
	}
	m = newTestModel(t, timeline.Live, fixtureSamples(120), 80, 24, Options{Settings: config.Settings{Layout: "graph"}})
	if !strings.Contains(screen(m), " GPU0 util ") || strings.Contains(screen(m), "PROCESSES") {
		t.Errorf("layout = graph: at 80x24 the pane shows the graph first:\n%s", screen(m))
	}
}
