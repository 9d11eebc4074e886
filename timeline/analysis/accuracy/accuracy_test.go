package accuracy_test

import (
	"os"
	"testing"

	"github.com/gputop-dev/gputop/timeline/analysis/accuracy"
)

// TestAccuracy judges the whole corpus and holds docs/accuracy.md to it: a
// case read right that is now wrong, or a figure lower than published,
// fails with the cases named; a document that is merely out of date (the
// figures rose) fails asking for scripts/accuracy.sh. With
// GPUTOP_ACCURACY_WRITE=1 (what the script sets) it writes the document.
func TestAccuracy(t *testing.T) {
	outcomes := corpus(t)
	doc := accuracy.Markdown(outcomes)
	if os.Getenv("GPUTOP_ACCURACY_WRITE") == "1" {
		if err := os.WriteFile(docPath, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	published, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatalf("%v: write it with scripts/accuracy.sh", err)
	}
	lost := accuracy.Regressions(accuracy.Parse(string(published)), outcomes)
	for _, l := range lost {
		t.Error(l)
	}
	if len(lost) == 0 && doc != string(published) {
		t.Errorf("docs/accuracy.md is not what the scorer says now (no published figure dropped): run scripts/accuracy.sh")
	}
}
