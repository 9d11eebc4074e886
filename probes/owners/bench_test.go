package owners

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// What the probe costs a slow-tier tick (every 5 s): on a node without
// Kubernetes or Slurm, between its looks a minute apart; and on a Slurm
// node of two jobs of one GPU each (with a mapping file each), every tick.
func BenchmarkCollect(b *testing.B) {
	ctx := context.Background()
	b.Run("no-scheduler", func(b *testing.B) {
		clock := &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
		p := New(Config{GPUs: testGPUs, KubeletSocket: filepath.Join(b.TempDir(), "kubelet.sock"),
			CgroupRoot: b.TempDir(), ProcRoot: b.TempDir(), JobMapDirs: []string{}, Now: clock.now})
		b.ReportAllocs()
		for b.Loop() {
			if _, err := p.Collect(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("slurm-2-jobs", func(b *testing.B) {
		n := newNode(b)
		for j := range 2 {
			id := strconv.Itoa(100 + j)
			n.process("system.slice/slurmstepd.scope/job_"+id+"/step_batch/slurm", strconv.Itoa(900+j), "PATH=/usr/bin")
			n.process("system.slice/slurmstepd.scope/job_"+id+"/step_batch/user/task_0", strconv.Itoa(1000+j),
				"SLURM_JOB_ID="+id, "SLURM_JOB_USER=alice", "SLURM_JOB_PARTITION=gpu", "SLURM_JOB_GPUS="+strconv.Itoa(j))
			n.write(filepath.Join(n.jobmap, strconv.Itoa(j)), id+"\n")
		}
		p := n.probe(nil)
		if r, err := p.Collect(ctx); err != nil || len(r.Owners) != 2 {
			b.Fatalf("owners %+v, %v", r.Owners, err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := p.Collect(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}
