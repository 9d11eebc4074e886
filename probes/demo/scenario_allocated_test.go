package demo

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/probes"
)

// The allocated demo's session says who holds every GPU, on the process
// tier's ticks, through the same Sampler a real node's owners come
// through; GPUs 6 and 7 are held by their owners with no process on them.
func TestAllocatedDemoSaysWhoHoldsEachGPU(t *testing.T) {
	clock := probes.NewFastClock(demoStart)
	node, err := New("allocated", 1, clock)
	if err != nil {
		t.Fatal(err)
	}
	sess := probes.OpenSession(probes.SessionConfig{Interval: time.Second, Machine: node.Machine(), Clock: clock})
	t.Cleanup(func() { _ = sess.Close() })
	var withOwners int
	for tick := range 11 {
		smp, err := sess.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if smp.Owners == nil {
			continue
		}
		withOwners++
		if !slices.Equal(smp.Owners, allocatedOwners) {
			t.Errorf("tick %d: owners %+v, want the scenario's", tick, smp.Owners)
		}
		busy := map[int]bool{}
		for _, p := range smp.Processes {
			busy[p.GPU] = true
		}
		for g := range demoGPUs {
			if want := !slices.Contains(allocatedIdle, g); busy[g] != want {
				t.Errorf("tick %d: GPU%d has a process: %v, want %v", tick, g, busy[g], want)
			}
		}
	}
	if withOwners != 3 {
		t.Errorf("owners on %d of 11 ticks, want 3 (the process tier's, every 5 s)", withOwners)
	}

	// The other scenarios allocate nothing: their samples are as before.
	other, err := New("training", 1, clock)
	if err != nil {
		t.Fatal(err)
	}
	if m := other.Machine(); m.Owners != nil {
		t.Error("the training demo has an owners probe")
	}
}
