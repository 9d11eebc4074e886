package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The closing report of a job of two tqdm epochs, the first seen part-way
// (2/200, as where the session opens late), with a checkpoint after each:
// the work counts from zero (400 it, not 398), a checkpoint has no rate
// of its own (not the training's, after the last bar either), and no two
// columns of the phase table touch.
func TestRunClosingTableOfEpochsAndCheckpoints(t *testing.T) {
	if testing.Short() {
		t.Skip("a 6 s job")
	}
	isolateMarks(t)
	script := `first=2
for e in 0 1; do
  for n in $first 40 80 120 160 200; do
    printf '\rEpoch %d: %3d%%|#####     | %d/200 [00:01<00:01, 200.00it/s]' $e $((n/2)) $n
    sleep 0.2
  done
  printf '\nSaving model checkpoint to out/checkpoint-%d\n' $e
  sleep 1.5
  first=0
done`
	path := filepath.Join(t.TempDir(), "job.gtr")
	te := newTestEnv()
	done := te.start("run", "-o", path, "--demo", "--", "sh", "-c", script)
	if code := waitExit(t, done, te); code != 0 {
		t.Fatalf("run exited %d; stderr:\n%s", code, te.err.String())
	}
	text := te.err.String()
	if !strings.Contains(text, ", 400 it done") {
		t.Errorf("want 400 it done:\n%s", text)
	}
	_, table, _ := strings.Cut(text, "  PHASE ")
	table, _, _ = strings.Cut(table, "\n\n")
	rows := strings.Split(table, "\n")[1:]
	checkpoints := 0
	// ENERGY, kWh, RATE, J/it: glued columns ("N/A0.454 it/s",
	// "0.005750.454 it/s", "0.00989245162 it/s") do not read as these.
	cells := regexp.MustCompile(`\s(N/A|[0-9.]+[kM]?J)\s+(N/A|\d*\.?\d+)\s+(N/A|\d*\.?\d+ it/s)\s+(N/A|\d*\.?\d+)$`)
	for _, row := range rows {
		m := cells.FindStringSubmatch(row)
		if m == nil {
			t.Errorf("columns run together in %q", row)
			continue
		}
		if strings.Contains(row, "Saving") {
			checkpoints++
			if m[3] != "N/A" {
				t.Errorf("a checkpoint with a rate: %q", row)
			}
		}
	}
	if checkpoints != 2 {
		t.Errorf("%d checkpoint rows, want 2:\n%s", checkpoints, table)
	}
}
