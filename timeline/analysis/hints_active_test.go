package analysis

import (
	"testing"

	"github.com/gputop-dev/gputop/timeline"
)

func TestSameHints(t *testing.T) {
	imb := timeline.Hint{ID: "gpu-imbalance", Severity: timeline.Warning, GPUs: []int{1, 2}, Evidence: "GPU0 95%, others 3%"}
	moved := imb
	moved.Evidence, moved.Confidence = "GPU0 97%, others 2%", 0.9
	other := imb
	other.GPUs = []int{1, 2, 3}
	worse := imb
	worse.Severity = timeline.Critical
	cases := []struct {
		name string
		a, b []timeline.Hint
		same bool
	}{
		{"none and none", nil, []timeline.Hint{}, true},
		{"evidence moved on", []timeline.Hint{imb}, []timeline.Hint{moved}, true},
		{"a GPU joined", []timeline.Hint{imb}, []timeline.Hint{other}, false},
		{"severity rose", []timeline.Hint{imb}, []timeline.Hint{worse}, false},
		{"one went away", []timeline.Hint{imb, worse}, []timeline.Hint{imb}, false},
		{"a first hint", nil, []timeline.Hint{imb}, false},
	}
	for _, c := range cases {
		if got := SameHints(c.a, c.b); got != c.same {
			t.Errorf("%s: SameHints = %v", c.name, got)
		}
	}
}
