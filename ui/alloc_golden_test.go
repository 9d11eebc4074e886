package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// TestGoldenAllocated pins the allocated demo at 2m30s, in a replay (the
// owners reach the screen through the store, as live), at 80x24 and
// 200x50, GPU6 selected: the allocations panel (packed into its one row at
// 80x24), each GPU's owner under its name where the GPUs have two rows,
// and the notebook pod that holds GPU6 in the detail title.
func TestGoldenAllocated(t *testing.T) {
	d := demoSession(t, "allocated", 3*time.Minute)
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		name := fmt.Sprintf("allocated_2m30s_%dx%d", size[0], size[1])
		t.Run(name, func(t *testing.T) {
			m := replayAt(t, d, 2*time.Minute+30*time.Second, size[0], size[1])
			for range 6 {
				press(m, "down")
			}
			got := screen(m)
			checkScreenFits(t, got, size[0], size[1])
			checkGolden(t, name, got)
			want := []string{" ALLOCATIONS  GPU0-3 pod llm-train-0"}
			if size[0] == 200 {
				want = append(want, "\n pod llm-train-0  SM", "\n job 4250         SM", "GPU6 pod notebook-bob (idle)",
					"pod team-b/notebook-bob (jupyter)")
			}
			for _, w := range want {
				if !strings.Contains(got, w) {
					t.Errorf("%q not on the screen:\n%s", w, got)
				}
			}
		})
	}
}

// A session whose source names no owner draws as it did before owners
// were known: no panel, no column (every other golden holds that too);
// once a reading says nothing is allocated, the panel says so.
func TestAllocationsPanelOnlyWithOwners(t *testing.T) {
	samples := fixtureSamples(120)
	m := newTestModel(t, timeline.Live, samples, 120, 40, Options{})
	if m.lay.Alloc != 0 || strings.Contains(screen(m), "ALLOCATIONS") {
		t.Fatalf("a panel without owners:\n%s", screen(m))
	}
	next := samples[len(samples)-1]
	next.At = next.At.Add(time.Second)
	next.Owners = []timeline.Owner{}
	m.Update(samplesMsg{samples: []timeline.Sample{next}})
	if got := screen(m); !strings.Contains(got, "ALLOCATIONS  no GPU is allocated") {
		t.Errorf("a reading of none is not said:\n%s", got)
	}
}

// The hosts screen names who holds each host's GPUs at the end of its line
// where it fits: one owner, two, or how many.
func TestHostLinesNameOwners(t *testing.T) {
	fx := hostsFixture{hosts: 3, gpus: 8}
	samples := fx.samples(60)
	last := &samples[len(samples)-1]
	for g := 16; g < 20; g++ {
		last.Owners = append(last.Owners, timeline.Owner{GPU: g, Pod: "train-0", Namespace: "a"})
	}
	for g := 8; g < 16; g++ {
		last.Owners = append(last.Owners, timeline.Owner{GPU: g, Job: fmt.Sprint(70 + g%3)})
	}
	m := newHostsModel(t, fx, timeline.Live, 0, 80, 24, Options{})
	m.Update(samplesMsg{samples: samples})
	got := screen(m)
	for host, want := range map[string]string{"node2": "3 owners", "node3": "pod train-0"} {
		var line string
		for _, l := range strings.Split(got, "\n") {
			if strings.HasPrefix(strings.TrimLeft(l, " ▸"), host+" ") && strings.Contains(l, " busy ") {
				line = l
			}
		}
		if !strings.HasSuffix(line, " "+want) {
			t.Errorf("%s's line does not end in %q: %q\n%s", host, want, line, got)
		}
	}
}
