package main

import "testing"

// --memory reads sizes as top and sort do; a size outside what a screen's
// history can sensibly take is a usage error.
func TestHistoryBudgetSizes(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"256MiB", 256 << 20, true},
		{"1GiB", 1 << 30, true},
		{"512M", 512 << 20, true},
		{"2G", 2 << 30, true},
		{"100MB", 100e6, true},
		{"1.5GiB", 3 << 29, true},
		{"16MiB", 16 << 20, true},
		{"15MiB", 0, false},
		{"65GiB", 0, false},
		{"NaNMiB", 0, false},
		{"-1G", 0, false},
		{"256", 0, false},
		{"MiB", 0, false},
	} {
		got, err := parseHistoryBudget(tt.in)
		if (err == nil) != tt.ok || tt.ok && got != tt.want {
			t.Errorf("--memory %q: %d, %v; want %d (ok %v)", tt.in, got, err, tt.want, tt.ok)
		}
	}
	if d, err := parseHistoryBudget(""); err != nil || d < 32<<20 || d > 128<<20 {
		t.Errorf("the default budget is %d (%v), want 32-128 MiB", d, err)
	}
}
