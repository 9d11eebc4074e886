package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestGoldenFaults pins the faults demo at 2m40s, at 80x24 and 200x50:
// GPU1 reported Xid 48 at 1:40 and fell off the bus (Xid 79) at 2:10. The
// phase band carries both Xid markers, the GPU list shows GPU1 lost, the
// detail pane (GPU1 selected) says its last Xid, and the hints name it.
func TestGoldenFaults(t *testing.T) {
	faults := demoSession(t, "faults", 3*time.Minute)
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		name := fmt.Sprintf("faults_2m40s_%dx%d", size[0], size[1])
		t.Run(name, func(t *testing.T) {
			m := replayAt(t, faults, 2*time.Minute+40*time.Second, size[0], size[1])
			press(m, "down")
			if shared, _ := m.sharedPane(); shared {
				// The graph's pane (at 80x24 the processes have it first):
				// whether the list sampled at 2:10, as GPU1 fell, still had
				// GPU1's process is a race in the demo, and that list is the
				// first of this 30 s window.
				press(m, "tab")
			}
			got := screen(m)
			checkScreenFits(t, got, size[0], size[1])
			checkGolden(t, name, got)
			for _, want := range []string{"Xid 79", "gpu-error"} {
				if !strings.Contains(got, want) {
					t.Errorf("%q not on the screen:\n%s", want, got)
				}
			}
		})
	}
}

// TestGoldenNVLink pins the faults demo at 2m with GPU7 selected, whose
// NVLink 16 counted CRC errors from 0:40 and went down at 1:10: the
// detail pane's health line names the link down and its errors, and where
// the pane has room (200x50) its link row draws the eighteen links with
// the down one crossed; link-degraded counts GPU7 (its evidence is the
// largest episode's, GPU6's PCIe link; the report lists every episode).
func TestGoldenNVLink(t *testing.T) {
	faults := demoSession(t, "faults", 3*time.Minute)
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		name := fmt.Sprintf("nvlink_2m_%dx%d", size[0], size[1])
		t.Run(name, func(t *testing.T) {
			m := replayAt(t, faults, 2*time.Minute, size[0], size[1])
			press(m, "down", "down", "down", "down", "down", "down", "down")
			got := screen(m)
			checkScreenFits(t, got, size[0], size[1])
			checkGolden(t, name, got)
			wants := []string{"NVLink 16 down", "NVLink 16 errors 1321", "link-degraded GPU6-7"}
			if size[0] >= 200 {
				wants = append(wants, "NVLink ████████████████x█", "down: 16")
			}
			for _, want := range wants {
				if !strings.Contains(got, want) {
					t.Errorf("%q not on the screen:\n%s", want, got)
				}
			}
		})
	}
}
