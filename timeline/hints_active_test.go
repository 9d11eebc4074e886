package timeline

import "testing"

func TestSameHints(t *testing.T) {
	imb := Hint{ID: "gpu-imbalance", Severity: Warning, GPUs: []int{1, 2}, Evidence: "GPU0 95 %, others 3 %"}
	moved := imb
	moved.Evidence, moved.Confidence = "GPU0 97 %, others 2 %", 0.9
	other := imb
	other.GPUs = []int{1, 2, 3}
	worse := imb
	worse.Severity = Critical
	cases := []struct {
		name string
		a, b []Hint
		same bool
	}{
		{"none and none", nil, []Hint{}, true},
		{"evidence moved on", []Hint{imb}, []Hint{moved}, true},
		{"a GPU joined", []Hint{imb}, []Hint{other}, false},
		{"severity rose", []Hint{imb}, []Hint{worse}, false},
		{"one went away", []Hint{imb, worse}, []Hint{imb}, false},
		{"a first hint", nil, []Hint{imb}, false},
	}
	for _, c := range cases {
		if got := SameHints(c.a, c.b); got != c.same {
			t.Errorf("%s: SameHints = %v", c.name, got)
		}
	}
}
