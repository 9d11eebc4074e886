package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A recording that holds absurd readings (1e19 W, -50 % and 1e9 %, a
// negative memory) reports what is left, with a note per quantity left
// out, and no mean of them: they are gaps wherever a file is read.
func TestReportOfAbsurdReadings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "absurd.gtr")
	absurdRecording(t, path)
	te := newTestEnv()
	if code := run([]string{"report", path}, &te.env); code != 0 {
		t.Fatalf("exit %d: %s", code, te.err.String())
	}
	out := te.out.String()
	for _, want := range []string{
		"note: 60 power readings above 10 kW left out",
		"note: 45 util readings outside 0% to 100% left out",
		"note: 60 memory readings below 0 B left out",
		"  0  H100 80GB HBM3    100% 100% 100% 100%",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "-50%") || strings.Contains(out, "e+") {
		t.Errorf("an absurd figure is in the report:\n%s", out)
	}
}
