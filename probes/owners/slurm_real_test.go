//go:build linux

package owners

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// slurmCluster is a one-node Slurm cluster of Debian's slurmctld and
// slurmd, started by a test in its temporary directory: both daemons on
// 127.0.0.1 at free ports, no munge (auth/none, cred/none), two GPUs
// declared as GRES on character devices the test makes, and the prolog
// and epilog of docs/owners.md writing DCGM's job-mapping files.
type slurmCluster struct {
	t       *testing.T
	dir     string
	conf    string
	node    string
	jobmap  string
	cgroups bool              // jobs are tracked in cgroups (v1 freezer), not only in /proc
	tools   map[string]string // slurmTools' paths
	daemons []*exec.Cmd
	jobs    []string
}

// slurmTools are what the test runs, where Debian's packages put them.
var slurmTools = []string{"slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "scancel"}

func findSlurm(t *testing.T) map[string]string {
	paths := map[string]string{}
	for _, name := range slurmTools {
		p, err := exec.LookPath(name)
		if err != nil {
			for _, d := range []string{"/usr/sbin", "/usr/bin"} {
				if _, serr := os.Stat(filepath.Join(d, name)); serr == nil {
					p, err = filepath.Join(d, name), nil
				}
			}
		}
		if err != nil {
			timelinetest.Unavailable(t, "%s is not installed (Debian's slurmctld, slurmd and slurm-client)", name)
		}
		paths[name] = p
	}
	return paths
}

// freePort is a TCP port on 127.0.0.1 that nothing listens on now.
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// v1Freezer says whether slurmd can track jobs in cgroups here: Slurm
// 22.05's cgroup/v1 plugin needs a writable freezer hierarchy. Its
// cgroup/v2 plugin is not tried: it stops with "Hybrid mode is not
// supported" on a machine that mounts v1 beside v2, as this kind does.
func v1Freezer() bool {
	d := "/sys/fs/cgroup/freezer/gputop-probe-" + strconv.Itoa(os.Getpid())
	if err := os.Mkdir(d, 0o755); err != nil {
		return false
	}
	return os.Remove(d) == nil
}

func startSlurm(t *testing.T) *slurmCluster {
	tools := findSlurm(t)
	if os.Geteuid() != 0 {
		// slurmd runs jobs as their users and its prolog as root.
		timelinetest.Unavailable(t, "slurmd needs root")
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	c := &slurmCluster{t: t, dir: t.TempDir(), node: fmt.Sprintf("gputop%d", os.Getpid()), cgroups: v1Freezer(), tools: tools}
	// Job b runs as nobody, from a script in the spool directory: the
	// test's directories must be open to it, as /var/lib/slurm is.
	for _, d := range []string{c.dir, filepath.Dir(c.dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c.conf = filepath.Join(c.dir, "slurm.conf")
	c.jobmap = filepath.Join(c.dir, "dcgm-job-map")
	for _, d := range []string{"state", "spool", "log", "dev"} {
		if err := os.Mkdir(filepath.Join(c.dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// gres.conf's File must be a character or block device, or slurmd
	// drops the GPUs and sets no SLURM_JOB_GPUS: /dev/null's numbers.
	for i := range 2 {
		dev := filepath.Join(c.dir, "dev", "nvidia"+strconv.Itoa(i))
		if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
			timelinetest.Unavailable(t, "cannot make a device file for gres.conf: %v", err)
		}
	}
	proctrack, task := "proctrack/linuxproc", "task/none"
	if c.cgroups {
		proctrack, task = "proctrack/cgroup", "task/cgroup"
	}
	// Two partitions on the node, so each job's partition is its own.
	conf := fmt.Sprintf(`ClusterName=gputoptest
SlurmctldHost=%[1]s(127.0.0.1)
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
CommunicationParameters=%[9]s
StateSaveLocation=%[4]s/state
SlurmdSpoolDir=%[4]s/spool
SlurmctldPidFile=%[4]s/slurmctld.pid
SlurmdPidFile=%[4]s/slurmd.pid
SlurmctldLogFile=%[4]s/log/slurmctld.log
SlurmdLogFile=%[4]s/log/slurmd.log
ProctrackType=%[5]s
TaskPlugin=%[6]s
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
Prolog=%[4]s/prolog
Epilog=%[4]s/epilog
NodeName=%[7]s NodeAddr=127.0.0.1 NodeHostname=%[1]s CPUs=%[8]d Gres=gpu:2 State=UNKNOWN
PartitionName=train Nodes=%[7]s Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:2
PartitionName=debug Nodes=%[7]s MaxTime=INFINITE State=UP OverSubscribe=FORCE:2
`, host, freePort(t), freePort(t), c.dir, proctrack, task, c.node, runtime.NumCPU(), bindTo(t, host))
	gres := fmt.Sprintf("AutoDetect=off\nName=gpu File=%s/dev/nvidia[0-1]\n", c.dir)
	// docs/owners.md's prolog and epilog, the directory the test's.
	prolog := fmt.Sprintf(`#!/bin/bash
mkdir -p %[1]s
for i in ${SLURM_JOB_GPUS//,/ }; do echo "$SLURM_JOB_ID" >> %[1]s/$i; done
`, c.jobmap)
	epilog := fmt.Sprintf(`#!/bin/bash
for i in ${SLURM_JOB_GPUS//,/ }; do sed -i "/^$SLURM_JOB_ID\$/d" %[1]s/$i; done
`, c.jobmap)
	for name, content := range map[string]string{
		"slurm.conf": conf, "gres.conf": gres, "cgroup.conf": "CgroupPlugin=cgroup/v1\n",
		"prolog": prolog, "epilog": epilog,
	} {
		if err := os.WriteFile(filepath.Join(c.dir, name), []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}

	t.Cleanup(c.stop)
	c.daemon(tools["slurmctld"], "-D", "-i", "-f", c.conf)
	c.daemon(tools["slurmd"], "-D", "-N", c.node, "-f", c.conf)
	c.waitFor("the node to be idle", 20*time.Second, func() (bool, string) {
		out, err := c.client("scontrol", "-o", "show", "node", c.node)
		return err == nil && strings.Contains(out, "State=IDLE"), out
	})
	return c
}

// bindTo is CommunicationParameters: slurmd binds to its NodeAddr with
// NoInAddrAny, but slurmctld binds to what its host's name resolves to
// (NoCtldInAddrAny) or to every address; it is kept to 127.0.0.1 where
// the name resolves there, as on a machine whose /etc/hosts says so.
func bindTo(t *testing.T, host string) string {
	if addrs, _ := net.LookupHost(host); slices.Contains(addrs, "127.0.0.1") {
		return "NoCtldInAddrAny,NoInAddrAny"
	}
	t.Logf("%s does not resolve to 127.0.0.1: slurmctld listens on every address", host)
	return "NoInAddrAny"
}

// daemon starts one of Slurm's daemons in the foreground, its output in
// the test's log directory.
func (c *slurmCluster) daemon(path string, args ...string) {
	c.t.Helper()
	out, err := os.Create(filepath.Join(c.dir, "log", filepath.Base(path)+".out"))
	if err != nil {
		c.t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = append(os.Environ(), "SLURM_CONF="+c.conf)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		c.t.Fatalf("%s: %v", path, err)
	}
	c.daemons = append(c.daemons, cmd)
}

// client runs one of Slurm's commands against the cluster, for at most
// 15 s (its MessageTimeout is 10).
func (c *slurmCluster) client(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.tools[name], args...)
	cmd.Env = append(os.Environ(), "SLURM_CONF="+c.conf)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// submit submits a batch job and returns its id.
func (c *slurmCluster) submit(args ...string) string {
	c.t.Helper()
	out, err := c.client("sbatch", append([]string{"--parsable", "--chdir=/", "--output=/dev/null"}, args...)...)
	if err != nil {
		c.t.Fatalf("sbatch %v: %v: %s", args, err, out)
	}
	id, _, _ := strings.Cut(out, ";")
	if !isJobID(id) {
		c.t.Fatalf("sbatch said %q", out)
	}
	c.jobs = append(c.jobs, id)
	return id
}

// gpus are the GPU indexes Slurm gave a job, as scontrol shows them:
// "GRES=gpu:1(IDX:1)", "gpu:2(IDX:0-1)".
func (c *slurmCluster) gpus(id string) []int {
	c.t.Helper()
	var out string
	c.waitFor("job "+id+" to run", 20*time.Second, func() (bool, string) {
		var err error
		out, err = c.client("scontrol", "-d", "show", "job", id)
		return err == nil && strings.Contains(out, "JobState=RUNNING") && strings.Contains(out, "IDX:"), out
	})
	m := regexp.MustCompile(`GRES=gpu[^ ]*\(IDX:([0-9,-]+)\)`).FindStringSubmatch(out)
	if m == nil {
		c.t.Fatalf("no GPU indexes in scontrol's job %s:\n%s", id, out)
	}
	var idx []int
	for part := range strings.SplitSeq(m[1], ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, _ := strconv.Atoi(lo)
		b := a
		if isRange {
			b, _ = strconv.Atoi(hi)
		}
		for i := a; i <= b; i++ {
			idx = append(idx, i)
		}
	}
	return idx
}

// waitEnded waits until Slurm has forgotten a job on the node: its epilog
// has run and slurmd told slurmctld so.
func (c *slurmCluster) waitEnded(id string) {
	c.t.Helper()
	c.waitFor("job "+id+" to end", 20*time.Second, func() (bool, string) {
		out, err := c.client("squeue", "-h", "-j", id, "-o", "%T")
		return err == nil && out == "" || strings.Contains(out, "Invalid job id"), out
	})
}

// waitFor polls cond every 100 ms for at most d; on timeout the test
// fails with what cond last saw and the daemons' logs.
func (c *slurmCluster) waitFor(what string, d time.Duration, cond func() (bool, string)) {
	c.t.Helper()
	deadline := time.Now().Add(d)
	for {
		ok, last := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("waited %v for %s; last saw:\n%s\n%s", d, what, last, c.logs())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// logs are the ends of the daemons' logs, for a failure's message.
func (c *slurmCluster) logs() string {
	var b strings.Builder
	for _, f := range []string{"slurmctld.log", "slurmd.log", "slurmctld.out", "slurmd.out"} {
		data, _ := os.ReadFile(filepath.Join(c.dir, "log", f))
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		fmt.Fprintf(&b, "== %s\n%s\n", f, strings.Join(lines[max(0, len(lines)-15):], "\n"))
	}
	return b.String()
}

// stop cancels the test's jobs, waits for them to end, stops slurmd and
// then slurmctld (slurmd tells slurmctld its last epilog on the way out),
// and removes the cgroups slurmd left empty.
func (c *slurmCluster) stop() {
	if len(c.jobs) > 0 {
		c.client("scancel", c.jobs...)
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			if out, err := c.client("squeue", "-h", "-o", "%i"); err != nil || out == "" {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	for _, cmd := range slices.Backward(c.daemons) {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}
	if c.cgroups {
		// A job's processes a failed test left behind, found by its
		// cgroups; then the tree, deepest first (rmdir of an empty cgroup).
		tops, _ := filepath.Glob("/sys/fs/cgroup/*/slurm_" + c.node)
		for _, top := range tops {
			var dirs []string
			filepath.WalkDir(top, func(p string, d os.DirEntry, err error) error {
				if err == nil && d.IsDir() {
					dirs = append(dirs, p)
					for _, pid := range readPIDs(filepath.Join(p, "cgroup.procs"), maxTries) {
						if n, ok := atoi(pid); ok {
							syscall.Kill(n, syscall.SIGKILL)
						}
					}
				}
				return nil
			})
			for _, d := range slices.Backward(dirs) {
				for range 50 {
					if err := os.Remove(d); err == nil || errors.Is(err, os.ErrNotExist) {
						break
					}
					time.Sleep(20 * time.Millisecond) // the killed are still leaving
				}
			}
		}
	}
}

// TestSlurmRealDaemonsJobsOnTheirGPUs runs two jobs on a real Slurm node
// (Debian's slurmctld and slurmd, GPUs as GRES) and reads them as gputop
// does on a cluster node: from the cgroups slurmd made and the jobs' own
// environments in /proc, from the job-mapping files the prolog wrote, and
// from both; then each job ends and its owner with it.
func TestSlurmRealDaemonsJobsOnTheirGPUs(t *testing.T) {
	start := time.Now()
	c := startSlurm(t)
	t.Logf("slurmctld and slurmd up in %v (job tracking in cgroups: %v)", time.Since(start).Round(time.Millisecond), c.cgroups)

	// Job a, root's, in train, ends by itself once the test says so; job b,
	// nobody's, in debug, is cancelled.
	end := filepath.Join(c.dir, "end")
	a := c.submit("--gres=gpu:1", "--wrap", "while [ ! -e "+end+" ]; do sleep 0.1; done")
	b := c.submit("--uid=nobody", "--gid=nogroup", "--partition=debug", "--gres=gpu:1", "--wrap", "sleep 300")
	ga, gb := c.gpus(a), c.gpus(b)
	if len(ga) != 1 || len(gb) != 1 || ga[0] == gb[0] {
		t.Fatalf("Slurm gave job %s GPUs %v and job %s GPUs %v: want one each, not the same", a, ga, b, gb)
	}

	gpus := testGPUs[:2]
	none := filepath.Join(t.TempDir(), "none.sock")
	fromCgroups := New(Config{GPUs: gpus, KubeletSocket: none, CgroupRoot: "/sys/fs/cgroup", ProcRoot: "/proc", JobMapDirs: []string{}})
	fromFiles := New(Config{GPUs: gpus, KubeletSocket: none, CgroupRoot: t.TempDir(), ProcRoot: t.TempDir(), JobMapDirs: []string{c.jobmap}})
	fromBoth := New(Config{GPUs: gpus, KubeletSocket: none, CgroupRoot: "/sys/fs/cgroup", ProcRoot: "/proc", JobMapDirs: []string{c.jobmap}})
	for _, p := range []*Probe{fromCgroups, fromFiles, fromBoth} {
		t.Cleanup(func() { p.Close() })
	}

	oa := timeline.Owner{GPU: ga[0], Job: a, User: "root", Partition: "train"}
	ob := timeline.Owner{GPU: gb[0], Job: b, User: "nobody", Partition: "debug"}
	full := []timeline.Owner{oa, ob}
	idsOnly := []timeline.Owner{{GPU: oa.GPU, Job: a}, {GPU: ob.GPU, Job: b}}
	expect := func(when string, p *Probe, want []timeline.Owner) {
		t.Helper()
		want = slices.Clone(want)
		sortOwners(want)
		c.waitFor(when, 10*time.Second, func() (bool, string) {
			got := collect(t, p)
			sortOwners(got)
			return slices.Equal(got, want), fmt.Sprintf(" got %+v\nwant %+v", got, want)
		})
	}
	// The files alone name jobs, not their users or partitions.
	expect("the mapping files to name both jobs", fromFiles, idsOnly)
	if c.cgroups {
		expect("the cgroups and environments to name both jobs", fromCgroups, full)
		expect("both sources to name each job once", fromBoth, full)
	} else {
		t.Log("no writable cgroup v1 freezer: slurmd tracked the jobs in /proc, so only the mapping files were read")
		expect("the mapping files to name both jobs", fromBoth, idsOnly)
	}

	// Job a ends: its cgroup goes, and its epilog takes it out of the files.
	if err := os.WriteFile(end, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c.waitEnded(a)
	expect("job "+a+" to be gone from the files", fromFiles, idsOnly[1:])
	if c.cgroups {
		expect("job "+a+" to be gone from the cgroups", fromCgroups, full[1:])
		expect("job "+a+" to be gone", fromBoth, full[1:])
	}

	// Job b is cancelled: the same.
	if out, err := c.client("scancel", b); err != nil {
		t.Fatalf("scancel %s: %v: %s", b, err, out)
	}
	c.waitEnded(b)
	for _, p := range []*Probe{fromCgroups, fromFiles, fromBoth} {
		expect("job "+b+" to be gone", p, nil)
	}
	t.Logf("start, two jobs, their reads and ends: %v", time.Since(start).Round(time.Millisecond))
}

func sortOwners(o []timeline.Owner) {
	slices.SortFunc(o, func(x, y timeline.Owner) int {
		if x.GPU != y.GPU {
			return x.GPU - y.GPU
		}
		return strings.Compare(x.Job, y.Job)
	})
}
