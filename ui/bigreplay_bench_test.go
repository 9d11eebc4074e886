package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/timeline"
)

// BenchmarkReplayFirstFrameBigNode is what `gputop replay` does before the
// first frame of a big job's recording: open the file, take the first batch
// of samples through the reader, file them, judge them and draw 200x50.
// The goal is under 1 s for 64 GPUs over 24 hours; 512 GPUs must draw at
// all (no terminal-size refusal).
func BenchmarkReplayFirstFrameBigNode(b *testing.B) {
	for _, c := range []struct {
		gpus int
		span time.Duration
	}{{64, 24 * time.Hour}, {512, 4 * time.Hour}} {
		path := writeClusterRecording(b, c.gpus, c.span)
		b.Run(fmt.Sprintf("%dx%s", c.gpus, c.span), func(b *testing.B) {
			for b.Loop() {
				r, err := recordings.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				src := recordings.NewReplay(r)
				m := New(Options{Source: src, Renderer: testRenderer(), Store: timeline.NewStore(timeline.StoreOptions{})})
				m.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
				batch, err := src.NextBatch(context.Background(), batchSize)
				if err != nil {
					b.Fatal(err)
				}
				m.Update(samplesMsg{samples: batch})
				if v := m.View(); !strings.Contains(v, fmt.Sprintf(" of %d", c.gpus)) {
					b.Fatalf("no GPU list on the first frame:\n%s", v)
				}
				r.Close()
			}
		})
	}
}

// writeClusterRecording records clusterLog to a file, as gputop import
// would have.
func writeClusterRecording(b *testing.B, gpus int, span time.Duration) string {
	b.Helper()
	info, samples := clusterLog(gpus, span)
	return writeRecording(b, "cluster.gtr", info, samples)
}
