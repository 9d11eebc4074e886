// Package demo is a GPU node that is not there: go-nvml's dgxh100 mock
// (eight H100s) driven by scenario scripts, a simulated host and the
// processes the scripts run, for `--demo` and for tests that need a whole
// node's worth of realistic samples.
//
//	demo.New(scenario, seed, clock).Machine() ─▶ probes.SessionConfig.Machine
//	                                             (the real NVML probe reads the mock)
//
// It imports probes (Probe, Clock, ProcessLookup, Machine), never the other
// way round. Package main and tests import it; the scenarios' signatures are
// checked here through the real probes (scenario_test.go), and their hints in
// timeline (hints_demo_test.go).
package demo
