package owners

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// node is a Slurm node's files in a temporary directory: its cgroup tree,
// its /proc and a job-mapping directory, as slurmd, slurmstepd and a
// prolog lay them out.
type node struct {
	t                    testing.TB
	cgroup, proc, jobmap string
}

func newNode(t testing.TB) *node {
	root := t.TempDir()
	n := &node{t: t, cgroup: filepath.Join(root, "sys/fs/cgroup"), proc: filepath.Join(root, "proc"),
		jobmap: filepath.Join(root, "run/dcgm-job-map")}
	for _, d := range []string{n.cgroup, n.proc} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

func (n *node) write(path, content string) {
	n.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		n.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		n.t.Fatal(err)
	}
}

// process puts a process with env in the cgroup dir.
func (n *node) process(dir, pid string, env ...string) {
	n.write(filepath.Join(n.cgroup, dir, "cgroup.procs"), pid+"\n")
	n.write(filepath.Join(n.proc, pid, "environ"), strings.Join(env, "\x00")+"\x00")
}

func (n *node) probe(now func() time.Time) *Probe {
	cfg := Config{GPUs: testGPUs, KubeletSocket: filepath.Join(n.t.TempDir(), "none.sock"),
		CgroupRoot: n.cgroup, ProcRoot: n.proc, JobMapDirs: []string{n.jobmap}, Now: now}
	return New(cfg)
}

func TestSlurmV2JobGPUsUserAndPartitionFromItsEnvironment(t *testing.T) {
	n := newNode(t)
	job := "system.slice/slurmstepd.scope/job_4242"
	// slurmstepd itself sits in the step's "slurm" cgroup, with slurmd's
	// environment; the batch script in user/task_0, with the job's.
	n.process(job+"/step_batch/slurm", "900", "PATH=/usr/bin", "SLURM_CONF=/etc/slurm/slurm.conf")
	n.process(job+"/step_batch/user/task_0", "1234", "HOME=/home/alice", "SLURM_JOB_ID=4242", "SLURM_JOB_USER=alice",
		"SLURM_JOB_PARTITION=gpu", "SLURM_JOB_GPUS=0,1", "CUDA_VISIBLE_DEVICES=0,1")
	n.process(job+"/step_extern/user", "1240", "SLURM_JOB_ID=4242")
	// The daemons' own cgroup holds no job.
	n.process("system.slice/slurmstepd.scope/system", "800", "PATH=/usr/bin")

	p := n.probe(nil)
	got := collect(t, p)
	want := []timeline.Owner{
		{GPU: 0, Job: "4242", User: "alice", Partition: "gpu"},
		{GPU: 1, Job: "4242", User: "alice", Partition: "gpu"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("owners:\n got %+v\nwant %+v", got, want)
	}
	if c := p.Checks()[1]; !strings.Contains(c, "found") {
		t.Errorf("check line %q", c)
	}

	// The job ends: slurmstepd removes its cgroup.
	if err := os.RemoveAll(filepath.Join(n.cgroup, job)); err != nil {
		t.Fatal(err)
	}
	if got := collect(t, p); len(got) != 0 {
		t.Errorf("after the job ended: %+v", got)
	}
}

func TestSlurmV1JobUnderEveryControllerIsOneJob(t *testing.T) {
	n := newNode(t)
	for _, ctrl := range []string{"cpuset", "devices", "freezer", "memory"} {
		dir := ctrl + "/slurm_node7/uid_0/job_77/step_0"
		if ctrl == "freezer" {
			n.process(dir, "555", "SLURM_JOB_ID=77", "SLURM_JOB_PARTITION=debug", "SLURM_STEP_GPUS=1")
		} else {
			n.write(filepath.Join(n.cgroup, dir, "cgroup.procs"), "555\n")
		}
	}
	got := collect(t, n.probe(nil))
	// uid 0 is root on every machine; the environment named no user.
	want := []timeline.Owner{{GPU: 1, Job: "77", User: "root", Partition: "debug"}}
	if !slices.Equal(got, want) {
		t.Errorf("owners:\n got %+v\nwant %+v", got, want)
	}
}

func TestSlurmJobMappingFilesNameJobsOnGPUsTheEnvironmentDidNot(t *testing.T) {
	n := newNode(t)
	n.process("system.slice/slurmstepd.scope/job_4242/step_0/user/task_0", "1234",
		"SLURM_JOB_ID=4242", "SLURM_JOB_USER=alice", "SLURM_JOB_PARTITION=gpu", "SLURM_JOB_GPUS=0")
	// DCGM's layout: a file per GPU index, job ids one a line (two jobs
	// sharing GPU 1); jobstats': by MIG UUID, "<job> <uid>".
	n.write(filepath.Join(n.jobmap, "0"), "4242\n")
	n.write(filepath.Join(n.jobmap, "1"), "5001\n5002\n")
	n.write(filepath.Join(n.jobmap, "MIG-eeeeeeee-4444-4444-4444-444444444444"), "6000 0\n")
	n.write(filepath.Join(n.jobmap, "7"), "7000\n")                // a GPU this session has not
	n.write(filepath.Join(n.jobmap, "README"), "not a job\n")      // not a GPU
	n.write(filepath.Join(n.jobmap, "2"), "\x1b[31m9999\nabc\n\n") // no job ids

	got := collect(t, n.probe(nil))
	want := []timeline.Owner{
		{GPU: 0, Job: "4242", User: "alice", Partition: "gpu"},
		{GPU: 1, Job: "5001"},
		{GPU: 1, Job: "5002"},
		{GPU: 4, Job: "6000", User: "root"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("owners:\n got %+v\nwant %+v", got, want)
	}
}

func TestNoSlurmIsALineAndALookAMinute(t *testing.T) {
	n := newNode(t)
	clock := &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	p := n.probe(clock.now)
	if c := p.Checks()[1]; !strings.Contains(c, "no slurmstepd cgroups") || !strings.Contains(c, "every minute") {
		t.Errorf("check line %q", c)
	}
	if got := collect(t, p); len(got) != 0 {
		t.Errorf("no Slurm, yet owners %+v", got)
	}
	// slurmd starts and a job with it: seen at the next look, a minute on.
	n.process("system.slice/slurmstepd.scope/job_1/step_0/user/task_0", "42", "SLURM_JOB_ID=1", "SLURM_JOB_GPUS=1")
	clock.t = clock.t.Add(30 * time.Second)
	if got := collect(t, p); len(got) != 0 {
		t.Errorf("looked again within the minute: %+v", got)
	}
	clock.t = clock.t.Add(30 * time.Second)
	if got := collect(t, p); len(got) != 1 || got[0].Job != "1" {
		t.Errorf("a minute later: %+v, want job 1 on GPU 1", got)
	}
	// Once slurmd is there, a new job is seen on the next read.
	n.process("system.slice/slurmstepd.scope/job_2/step_0/user/task_0", "43", "SLURM_JOB_ID=2", "SLURM_JOB_GPUS=0")
	if got := collect(t, p); len(got) != 2 {
		t.Errorf("the next read: %+v, want jobs 1 and 2", got)
	}
}

func TestSlurmFilesAreBoundedAndCleaned(t *testing.T) {
	n := newNode(t)
	// A partition name with escapes, a GPU list of nonsense and repeats,
	// an environment far larger than any real one.
	big := strings.Repeat("X=", 1<<20)
	n.process("system.slice/slurmstepd.scope/job_3/step_0/user/task_0", "44", big, "SLURM_JOB_ID=3",
		"SLURM_JOB_PARTITION=gpu\x1b]0;title\x07", "SLURM_JOB_GPUS=0,0,-1,x,99999999,1")
	n.process("system.slice/slurmstepd.scope/job_4/step_0/user/task_0", "45", "SLURM_JOB_ID=4",
		"SLURM_JOB_PARTITION=gpu\x1b]0;title\x07", "SLURM_JOB_GPUS=0,0,-1,x,99999999,1")
	// A mapping file of a million lines is read to 4 KiB.
	n.write(filepath.Join(n.jobmap, "0"), strings.Repeat("12345\n", 1<<20))
	got := collect(t, n.probe(nil))
	want := []timeline.Owner{
		{GPU: 0, Job: "4", Partition: "gpu"},
		{GPU: 1, Job: "4", Partition: "gpu"},
		{GPU: 0, Job: "12345"},
	}
	// Job 3's variables lie past the first MiB of its environment: unread.
	if !slices.Equal(got, want) {
		t.Errorf("owners:\n got %+v\nwant %+v", got, want)
	}
}
