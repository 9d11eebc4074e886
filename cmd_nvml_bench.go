package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/probes/nvidia"
)

// benchPaced are the session intervals at which nvml-bench counts the
// utilisation samples each GetSamples returns: the default and the
// shortest interval people use (scripts/gpu-check.sh records at both).
var benchPaced = []time.Duration{250 * time.Millisecond, time.Second}

func cmdNVMLBench(e *env) *cobra.Command {
	c := newCommand("nvml-bench [--calls 1000] [--paced-calls 8] [--json] [--demo[=SCENARIO]] [--interval 1s] [--costs FILE]",
		"time every NVML call gputop makes (median, p99), count GetSamples' samples per call, and say each call's pace and, from a real run's costs, the CPU it takes a GPU",
		"gputop nvml-bench --json > nvml-cost.json", "gputop nvml-bench --demo --calls 100",
		"gputop nvml-bench --demo --json --costs docs/real-gpu/h100-2026-11-27.json --interval 1s")
	c.Hidden = true
	fs := c.Flags()
	calls := fs.Int("calls", 1000, "make each call `N` times (spread over the GPUs)")
	paced := fs.Int("paced-calls", 8, "ask GetSamples `N` times at each of 250ms and 1s, as a session does, and count the samples")
	asJSON := fs.Bool("json", false, "print JSON (fields in docs/real-gpu.md)")
	interval := fs.Duration("interval", time.Second, "schedule each call as a session sampling every `D` does (per_gpu_per_s)")
	costsFile := fs.String("costs", "", "predict the CPU per GPU-second from the calls' costs in `FILE` (nvml-bench --json of a real driver)")
	var demo demoFlag
	demoVar(fs, &demo, "measure the mock of 8 simulated H100s playing `SCENARIO`: "+scenarioNames)
	c.RunE = func(_ *cobra.Command, rest []string) error {
		var err error
		if len(rest) > 0 {
			return usageError{fmt.Sprintf("unexpected argument %q", rest[0])}
		}
		if *calls < 1 || *calls > 1_000_000 {
			return usageError{fmt.Sprintf("--calls %d: give 1 to 1000000", *calls)}
		}
		if *paced < 0 || *paced > 1000 {
			return usageError{fmt.Sprintf("--paced-calls %d: give 0 to 1000", *paced)}
		}
		if *interval < 10*time.Millisecond || *interval > time.Hour {
			return usageError{fmt.Sprintf("--interval %v: give 10ms to 1h", *interval)}
		}
		var costs *nvidia.CostReport
		if *costsFile != "" {
			if costs, err = readCosts(*costsFile); err != nil {
				return err
			}
		}
		log.SetOutput(io.Discard)
		machine, err := demo.machine(probes.RealClock{})
		if err != nil {
			return err
		}
		lib := nvml.New()
		if machine != nil {
			lib = machine.NVML
		}
		rep, err := nvidia.MeasureCost(lib, probes.RealClock{}, nvidia.CostOptions{Calls: *calls, Paced: benchPaced, PacedCalls: *paced})
		if err != nil && rep == nil {
			return err
		}
		rep.Schedule(*interval, nvidia.DefaultPace, time.Duration(probes.SlowTierTicks(*interval))**interval)
		if costs != nil {
			rep.Predict(costs, filepath.Base(*costsFile))
		}
		if *asJSON {
			enc := json.NewEncoder(e.stdout)
			enc.SetIndent("", "  ")
			if werr := enc.Encode(rep); werr != nil {
				return werr
			}
		} else {
			writeCostText(e.stdout, rep)
		}
		// Measured, but NVML did not close cleanly: say so after the numbers.
		return err
	}
	return c
}

// readCosts reads an nvml-bench --json file: a few KB, so anything past
// 4 MB is not one.
func readCosts(path string) (*nvidia.CostReport, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var costs nvidia.CostReport
	if err := json.NewDecoder(io.LimitReader(f, 4<<20)).Decode(&costs); err != nil || len(costs.Calls) == 0 {
		return nil, fmt.Errorf("%s: not the JSON of nvml-bench --json", path)
	}
	return &costs, nil
}

// writeCostText writes the report as a table a person reads.
func writeCostText(w io.Writer, rep *nvidia.CostReport) {
	fmt.Fprintf(w, "NVML: driver %s, CUDA %s, %d GPUs; open (nvmlInit and enumeration) %.1f ms\n",
		rep.Driver, rep.CUDA, rep.GPUs, rep.OpenMS)
	fmt.Fprintf(w, "%-6s %-64s %6s %10s %10s %10s %10s %8s %10s  %s\n", "tier", "call", "calls", "median µs", "p99 µs", "max µs", "CPU µs",
		"/GPU/s", "pred µs/s", "note")
	for _, c := range rep.Calls {
		note := c.Skipped
		if c.Failed > 0 {
			note = fmt.Sprintf("%d failed: %s", c.Failed, c.Return)
		}
		if c.Skipped != "" {
			fmt.Fprintf(w, "%-6s %-64s %6s %10s %10s %10s %10s %8s %10s  %s\n", c.Tier, c.Call, "-", "-", "-", "-", "-", "-", "-", note)
			continue
		}
		if c.CostNote != "" {
			note = strings.TrimSpace(note + " " + c.CostNote)
		}
		fmt.Fprintf(w, "%-6s %-64s %6d %10.2f %10.2f %10.2f %10s %8s %10s  %s\n", c.Tier, c.Call, c.Calls, c.MedianUS, c.P99US, c.MaxUS,
			orDash(c.CPUUS, "%.2f"), orDash(c.PerGPUPerS, "%.3g"), orDash(c.PredictedCPUUS, "%.1f"), note)
	}
	if rep.PredictedCPUUS != nil {
		fmt.Fprintf(w, "At %s, from %s: the GPU probe %.0f µs of CPU per GPU-second, the process tier %.0f more\n",
			rep.Interval, rep.CostsFrom, *rep.PredictedCPUUS, *rep.PredictedProcsCPUUS)
	}
	fmt.Fprintf(w, "GetSamples' whole buffer: %d samples over %.0f ms, %d entries empty\n", rep.BufferSamples, rep.BufferSpanMS, rep.BufferEmpty)
	for _, s := range rep.Samples {
		fmt.Fprintf(w, "GetSamples every %s: %d calls, %d-%d samples per call (median %d), one every %.0f ms\n",
			s.Interval, s.Calls, s.Min, s.Max, s.Median, s.PeriodMS)
	}
}

// orDash formats *v, or "-" where there is none.
func orDash(v *float64, format string) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf(format, *v)
}
