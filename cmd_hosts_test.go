package main

import (
	"context"
	"runtime/debug"
	"testing"

	"github.com/gputop-dev/gputop/timeline"
)

// sizedSource is a source of a session of gpus GPUs.
type sizedSource struct {
	gpus   int
	marked []string
}

func (s *sizedSource) Next(context.Context) (timeline.Sample, error) { return timeline.Sample{}, nil }
func (s *sizedSource) Mark(text string)                              { s.marked = append(s.marked, text) }
func (s *sizedSource) Info() timeline.SourceInfo {
	return timeline.SourceInfo{GPUs: make([]timeline.GPUInfo, s.gpus)}
}

// TestABigSessionPacesTheCollectorByHeadroom checks pacedCollector: the
// screen's GOGC of 25 stays for a small session; a big one's lets the heap
// grow by bigSessionHeadroom from the sample that makes it big; a lower
// GOGC from the environment stays; markers pass through.
func TestABigSessionPacesTheCollectorByHeadroom(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	src := &sizedSource{gpus: 16}
	p := &pacedCollector{hostsSource: src}
	p.Next(context.Background())
	if got := debug.SetGCPercent(25); got != 25 {
		t.Errorf("16 GPUs: GOGC %d, want 25", got)
	}
	src.gpus = bigSessionGPUs
	p.Next(context.Background())
	// A test's heap is far below the headroom.
	if got := debug.SetGCPercent(25); got != 100 {
		t.Errorf("%d GPUs: GOGC %d, want 100", bigSessionGPUs, got)
	}
	debug.SetGCPercent(10)
	(&pacedCollector{hostsSource: src}).Next(context.Background())
	if got := debug.SetGCPercent(25); got != 10 {
		t.Errorf("GOGC=10 asked for: %d", got)
	}
	p.Mark("epoch 2")
	if len(src.marked) != 1 {
		t.Errorf("the marker did not reach the hosts: %q", src.marked)
	}
}

func TestHeadroomPercent(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{{0, 100}, {64 << 20, 100}, {128 << 20, 100}, {256 << 20, 50}, {400 << 20, 32}, {2 << 30, 25}} {
		if got := headroomPercent(c.live); got != c.want {
			t.Errorf("%d MB live: GOGC %d, want %d", c.live>>20, got, c.want)
		}
	}
}
