package exporter

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// SeriesNames holds every name a scrape of the demos sends (the faults
// demo has the health and per-link series, the mig demo MIG instances,
// the imbalance demo hints), so the examples' name checks cannot pass a
// name gputop does not send, nor refuse one it does.
func TestSeriesNamesHoldEveryNameAScrapeSends(t *testing.T) {
	names := SeriesNames()
	if len(names) < 40 || !slices.IsSorted(names) {
		t.Fatalf("SeriesNames: %d names %q", len(names), names)
	}
	for _, n := range names {
		if n == "" || strings.ContainsAny(n, `" {}`) {
			t.Fatalf("a name read badly: %q", n)
		}
	}
	for _, want := range []string{"DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_XID_ERRORS", "gputop_hint_active",
		"gputop_hint_first_seen_timestamp_seconds", "gputop_hint_info", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L17"} {
		if !slices.Contains(names, want) {
			t.Errorf("SeriesNames lacks %s", want)
		}
	}
	for _, scenario := range []string{"faults", "mig", "imbalance"} {
		x := New(Options{})
		playDemo(t, x, scenario, 2*time.Minute+30*time.Second)
		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(x)
		fams, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fams {
			if !slices.Contains(names, f.GetName()) {
				t.Errorf("%s: a scrape sends %s, which SeriesNames lacks", scenario, f.GetName())
			}
		}
	}
}
