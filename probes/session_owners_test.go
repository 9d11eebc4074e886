package probes_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/probes/demo"
	"github.com/gputop-dev/gputop/probes/owners"
	"github.com/gputop-dev/gputop/timeline"
)

// A session of this machine (no Machine: its GPUs through an NVML, here
// the demo's mock) looks for who holds its GPUs, says what it found among
// its checks, and puts the allocations on the process tier's samples.
func TestLiveSessionSaysWhoHoldsItsGPUs(t *testing.T) {
	clock := probes.NewFastClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	node, err := demo.New("training", 1, clock)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	jobmap := filepath.Join(dir, "dcgm-job-map")
	if err := os.MkdirAll(jobmap, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(jobmap, "3"), []byte("4242\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(dir, "kubelet.sock")
	sess := probes.OpenSession(probes.SessionConfig{Interval: time.Second, Clock: clock,
		NewNVML: func() nvml.Interface { return node.NVML() },
		Owners:  owners.Config{KubeletSocket: socket, CgroupRoot: dir, ProcRoot: dir, JobMapDirs: []string{jobmap}}})
	t.Cleanup(func() { _ = sess.Close() })

	checks := strings.Join(sess.Info().Checks, "\n")
	for _, want := range []string{"kubelet pod-resources: " + socket + ": not found", "slurm: job cgroups or job-mapping files found"} {
		if !strings.Contains(checks, want) {
			t.Errorf("checks lack %q:\n%s", want, checks)
		}
	}
	smp, err := sess.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := []timeline.Owner{{GPU: 3, Job: "4242"}}; !slices.Equal(smp.Owners, want) {
		t.Errorf("owners %+v, want %+v", smp.Owners, want)
	}
	for _, st := range smp.Probes {
		if st.Probe == "owners" && st.State != timeline.ProbeOK {
			t.Errorf("the owners probe: %v %s (a missing kubelet is no error)", st.State, st.Err)
		}
	}
}
