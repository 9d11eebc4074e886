package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// The real-GPU check (scripts/gpu-check.sh, docs/real-gpu.md) in its dry
// run: the same script against --demo, so that the one prepared for the
// first real H100 keeps working. Every check must be listed in results.md,
// and none may fail; what needs the GPU or nvidia-smi is SKIP with a reason.
func TestGPUCheckDryRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built binary for about a minute, in tmux among others: skipped with -short")
	}
	for _, tool := range []string{"python3", "tmux", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			timelinetest.Unavailable(t, "%s is not installed (.ci/run installs it)", tool)
		}
	}
	bin := buildBinary(t)
	out := t.TempDir()
	runtime := t.TempDir()
	cmd := exec.Command("bash", "scripts/gpu-check.sh", out)
	cmd.Env = append(os.Environ(), "GPUTOP_BIN="+bin, "GPU_CHECK_DEMO=1", "GPU_CHECK_SCALE=0.1", "XDG_RUNTIME_DIR="+runtime)
	done := make(chan error, 1)
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("gpu-check.sh: %v\n%s", err, log.String())
		}
	case <-time.After(5 * time.Minute): // a hang guard only; it takes about 40 s
		_ = cmd.Process.Kill()
		t.Fatalf("gpu-check.sh still running after 5 minutes:\n%s", log.String())
	}
	results, err := os.ReadFile(filepath.Join(out, "results.md"))
	if err != nil {
		t.Fatalf("no results.md: %v\n%s", err, log.String())
	}
	text := string(results)
	if strings.Contains(text, "| FAIL |") {
		t.Errorf("a check failed:\n%s", text)
	}
	var want []string
	for _, label := range []string{"idle", "busy"} {
		for _, f := range []string{"util", "mem-used", "mem-total", "mem-reserved", "power", "power-limit", "clock-sm",
			"clock-mem", "temp", "pcie-gen", "pcie-gen-max", "pcie-width", "pcie-width-max", "ecc-mode", "mig-mode"} {
			want = append(want, "smi-"+label+"-"+f)
		}
	}
	want = append(want, "gputop-binary", "nvml-calls-answer", "nvml-tick-cost", "nvml-samples-250ms", "nvml-samples-1s",
		"workload-exit", "self-live-1s", "self-live-250ms", "self-record-1s", "self-record-250ms", "report-phases",
		"no-warning-busy", "gpm-vs-gemm", "hint-input-bound", "hint-idle-memory-held", "hint-periodic-stall",
		"nvml-bill-1s", "nvml-bill-250ms", "rival-gputop", "rival-watch-nvidia-smi", "rival-nvidia-smi-dmon",
		"rival-nvidia-smi-query", "rival-nvtop", "rival-nvitop")
	for _, id := range want {
		if !strings.Contains(text, "\n| "+id+" | ") {
			t.Errorf("results.md does not list %s:\n%s", id, text)
		}
	}
	// What must hold even in the dry run: the NVML calls answer through the
	// mock, the phases are named, and the demo's hints are the expected ones.
	// The bill: the schedule priced with the H100's costs, within its goals.
	for _, id := range []string{"nvml-calls-answer", "report-phases", "no-warning-busy", "hint-input-bound",
		"hint-idle-memory-held", "hint-periodic-stall", "workload-exit", "nvml-bill-1s", "nvml-bill-250ms"} {
		if !strings.Contains(text, "\n| "+id+" | PASS |") {
			t.Errorf("%s did not pass:\n%s", id, text)
		}
	}
	for _, f := range []string{"nvml-cost.json", "workload.gtr", "report.txt", "report.json", "snapshot-idle.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("the dry run left no %s: %v", f, err)
		}
	}
}

// TestPowerCheckDryRun runs scripts/gpu-check/power-check.sh against the
// demo, as CI can: its snapshots, recordings, reports and nvml-bench answer,
// and it says so with its exit status.
func TestPowerCheckDryRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built binary for about 20 s: skipped with -short")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		timelinetest.Unavailable(t, "python3 is not installed (.ci/run installs it)")
	}
	bin := buildBinary(t)
	out := t.TempDir()
	cmd := exec.Command("bash", "scripts/gpu-check/power-check.sh", out)
	cmd.Env = append(os.Environ(), "GPUTOP_BIN="+bin, "GPU_CHECK_DEMO=1", "XDG_RUNTIME_DIR="+t.TempDir())
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("power-check.sh: %v\n%s", err, log.String())
		}
	case <-time.After(3 * time.Minute): // a hang guard only; it takes about 17 s
		_ = cmd.Process.Kill()
		t.Fatalf("power-check.sh still running after 3 minutes:\n%s", log.String())
	}
	power, err := os.ReadFile(filepath.Join(out, "power.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"snapshot 3: gputop ", "rec-1s.csv: ", "rec-250ms.csv: ", "from the integrated power"} {
		if !strings.Contains(string(power), want) {
			t.Errorf("power.txt has no %q:\n%s", want, power)
		}
	}
}
