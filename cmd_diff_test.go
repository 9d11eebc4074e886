package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// The checkpoint demo against the training demo: the fix that made the
// checkpoint asynchronous, as a diff says it. periodic-stall is gone, the
// GPUs are busier, and --fail-if turns a regression into exit 3.
func TestDiffCheckpointAgainstTraining(t *testing.T) {
	ck := recordDemo(t, "checkpoint", "8m")
	tr := recordDemo(t, "training", "8m")
	code, out, errOut := gputop("diff", ck, tr)
	if code != 0 {
		t.Fatalf("diff: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"gone: periodic-stall (warning in A)", "busy share", "energy, all GPUs", "stalled"} {
		if !strings.Contains(out, want) {
			t.Errorf("the diff lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = gputop("diff", ck, tr, "--format", "json")
	var d struct {
		Hints []struct{ ID, Change string } `json:"hints"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || code != 0 {
		t.Fatalf("diff --format json: exit %d, %v\n%s", code, err, out)
	}
	if len(d.Hints) == 0 || d.Hints[0].ID != "periodic-stall" || d.Hints[0].Change != "gone" {
		t.Errorf("JSON hints: %+v", d.Hints)
	}
	// The other way round the GPUs are less busy: a regression.
	code, _, errOut = gputop("diff", tr, ck, "--fail-if", "busy<-5%", "--fail-if", "energy>+10%")
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if code != exitCheck || len(lines) != 1 || !strings.HasPrefix(lines[0], "gputop diff: --fail-if busy<-5%: busy share") {
		t.Errorf("a regression under --fail-if: exit %d, want 3, one line for busy:\n%s", code, errOut)
	}
	if code, _, errOut := gputop("diff", ck, tr, "--fail-if", "busy<-5%"); code != 0 {
		t.Errorf("an improvement under --fail-if busy<-5%%: exit %d\n%s", code, errOut)
	}
	for _, bad := range [][]string{{"diff", ck}, {"diff", ck, tr, "--fail-if", "busy<-5x"}, {"diff", ck, tr, "--format", "pdf"}} {
		if code, _, errOut := gputop(bad...); code != exitUsage || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, want 2 and one line\n%s", bad, code, errOut)
		}
	}
	if code, _, errOut := gputop("diff", ck, "/nonexistent.gtr"); code != exitError {
		t.Errorf("a missing recording: exit %d, want 1\n%s", code, errOut)
	}
}
