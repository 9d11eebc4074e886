package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// gputop report lists the longest phases and sums up the rest; --phases all
// lists every phase the JSON has; any other value is a usage error.
func TestReportPhasesAll(t *testing.T) {
	isolateMarks(t)
	path := filepath.Join(t.TempDir(), "ck.gtr")
	if code := run([]string{"record", "-o", path, "--demo=checkpoint", "--fast", "--duration", "30m"}, &newTestEnv().env); code != 0 {
		t.Fatal("record failed")
	}
	report := func(args ...string) (string, int) {
		te := newTestEnv()
		code := run(append([]string{"report", path}, args...), &te.env)
		return te.out.String() + te.err.String(), code
	}
	js, code := report("--format", "json")
	var doc struct {
		Phases []struct{ Kind string }
	}
	if err := json.Unmarshal([]byte(js), &doc); code != 0 || err != nil {
		t.Fatalf("report --format json: exit %d, %v", code, err)
	}
	auto := 0
	for _, p := range doc.Phases {
		if p.Kind != "marker" {
			auto++
		}
	}
	if auto <= 20 {
		t.Fatalf("only %d automatic phases; the test needs more than a table lists", auto)
	}
	text, _ := report()
	if !strings.Contains(text, "more phases: ") {
		t.Errorf("the report does not sum up phases past 20:\n%s", text)
	}
	all, code := report("--phases", "all")
	if code != 0 || strings.Contains(all, "more phases") {
		t.Errorf("report --phases all: exit %d, still sums up:\n%s", code, all)
	}
	row := regexp.MustCompile(`(?m)^\d+:\d\d:\d\d +\S+ +(busy|stalled|idle) `)
	if rows := len(row.FindAllString(all, -1)); rows != auto {
		t.Errorf("report --phases all lists %d phases of %d", rows, auto)
	}
	if out, code := report("--phases", "7"); code != 2 || !strings.Contains(out, "--phases") {
		t.Errorf("report --phases 7: exit %d, %q", code, out)
	}
}
