package ui

import (
	"testing"

	"github.com/gputop-dev/gputop/ui/layout"
)

// TestLayoutCountsTheSparkRows: the rows the layout gives a GPU block are
// the rows the GPU list has to draw.
func TestLayoutCountsTheSparkRows(t *testing.T) {
	for _, sm := range []bool{false, true} {
		if got, want := layout.SparkRows(sm), len(sparkRows(sm)); got != want {
			t.Errorf("with SM %v the layout counts %d sparkline rows, the GPU list has %d", sm, got, want)
		}
	}
}
