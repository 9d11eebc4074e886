package analysis_test

import (
	"slices"
	"testing"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// In a session of several hosts each GPU is judged against its own host:
// two hosts whose GPUs starve alike, one with its CPU busy feeding them and
// one with its CPU quiet, get input-bound and low-utilization apart, as
// each would alone, and no hint groups the GPUs of both under one figure.
func TestEachHostIsJudgedWithItsOwnCPU(t *testing.T) {
	starved := func(h, g, sec int) timelinetest.GPUReading {
		if sec%6 < 2 {
			return timelinetest.Training
		}
		r := timelinetest.Idle
		r.Mem = 20 << 30
		return r
	}
	// judge is the hints of a cluster of hosts starved alike, host h's CPU
	// at cpu[h], by id and severity and their hosts' own GPU numbers.
	judge := func(cpu ...float64) map[string][]string {
		info, samples := timelinetest.Cluster(len(cpu), 8, 600, starved)
		for i := range samples {
			for k, m := range samples[i].Metrics() {
				if _, host := timeline.SplitDeviceHost(m.Key.Device); m.Key.Name == timeline.HostCPU && host != "" {
					samples[i].Values[k] = cpu[slices.IndexFunc(info.Hosts, func(h timeline.HostInfo) bool { return h.Name == host })]
				}
			}
		}
		e := analysis.NewEngine(info)
		for i := range samples {
			e.Add(&samples[i])
		}
		out := map[string][]string{}
		for _, h := range e.Hints(e.Last()) {
			if len(h.GPUs) > 0 && h.GPUs[0]/8 != h.GPUs[len(h.GPUs)-1]/8 {
				t.Errorf("%s groups GPUs of two hosts: %v", h.ID, h.GPUs)
			}
			if len(h.GPUs) > 0 {
				host := timelinetest.ClusterHost(h.GPUs[0] / 8)
				out[host] = append(out[host], h.Severity.String()+" "+h.ID)
			}
		}
		return out
	}
	busy, quiet := judge(95), judge(5)
	both := judge(95, 5)
	if !slices.Contains(busy["node1"], "critical input-bound") || slices.Contains(quiet["node1"], "critical input-bound") {
		t.Fatalf("alone: busy CPU %v, quiet CPU %v; want input-bound only where the CPU is busy", busy, quiet)
	}
	if !slices.Equal(both["node1"], busy["node1"]) {
		t.Errorf("node1 (CPU busy) among hosts: %v, alone: %v", both["node1"], busy["node1"])
	}
	if !slices.Equal(both["node2"], quiet["node1"]) {
		t.Errorf("node2 (CPU quiet) among hosts: %v, alone: %v", both["node2"], quiet["node1"])
	}
}
