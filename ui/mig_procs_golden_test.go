package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/ui/procs"
)

// TestGoldenMIGProcesses pins the mig demo's process table at 2m30s, sorted
// by GPU, at 80x24 and 200x50: each slice's process is listed under its
// slice ("0/1g.10gb"), the slices' processes right after GPU0's place, and
// the selected notebook's line names its slice in full.
func TestGoldenMIGProcesses(t *testing.T) {
	mig := demoSession(t, "mig", 3*time.Minute)
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		name := fmt.Sprintf("mig_procs_2m30s_%dx%d", size[0], size[1])
		t.Run(name, func(t *testing.T) {
			m := replayAt(t, mig, 2*time.Minute+30*time.Second, size[0], size[1])
			press(m, "p")
			for m.procs.SortBy != procs.ByGPU {
				press(m, "s")
			}
			press(m, "down", "down")
			got := screen(m)
			checkScreenFits(t, got, size[0], size[1])
			checkGolden(t, name, got)
			for _, want := range []string{"0/1g.10gb", "PID 6021 on GPU0 MIG 1g.10gb", "by GPU"} {
				if !strings.Contains(got, want) {
					t.Errorf("%q not on the screen:\n%s", want, got)
				}
			}
		})
	}
}

// The summary line counts whole GPUs and, where the line has room, says the
// slices; on a tall screen no slice has a row of utilisation or power
// (NVML gives it neither), and GPU0, split, starts with the power it has.
func TestMIGSummaryAndRows(t *testing.T) {
	mig := demoSession(t, "mig", 3*time.Minute)
	wide := screen(replayAt(t, mig, 2*time.Minute+30*time.Second, 120, 24))
	if !strings.Contains(wide, " of 8, 3 MIG slices  util lo ") || !strings.Contains(wide, "WARNING gpu-imbalance") {
		t.Errorf("120x24 summary:\n%s", wide)
	}
	tall := screen(replayAt(t, mig, 2*time.Minute+30*time.Second, 200, 50))
	lines := strings.Split(tall, "\n")
	slice := false
	for _, l := range lines {
		label := strings.TrimSpace(l[:min(len(l), 16)])
		switch {
		case strings.HasPrefix(label, "└") || strings.HasPrefix(label, "▸└"):
			slice = true
		case strings.HasPrefix(label, "GPU"), strings.HasPrefix(label, "▸GPU"), strings.HasPrefix(label, "phase"):
			slice = false
		}
		if slice && (strings.Contains(l, " util ") || strings.Contains(l, " pwr ")) {
			t.Errorf("a slice's row of what it has not: %q", l)
		}
	}
	if !strings.HasPrefix(lines[1], "▸GPU0     pwr ") {
		t.Errorf("GPU0's first row: %q", lines[1])
	}
	if !strings.Contains(tall, "\n GPU0 power ") {
		t.Errorf("the detail pane of GPU0 plots what it has not:\n%s", tall)
	}
}
