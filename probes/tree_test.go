package probes

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

func TestTreeOf(t *testing.T) {
	procs := []procEntry{
		{pid: 1, ppid: 0},
		{pid: 500, ppid: 1},   // the job
		{pid: 501, ppid: 500}, // a DataLoader worker
		{pid: 502, ppid: 500},
		{pid: 90, ppid: 501},   // a grandchild whose pid wrapped below its parent's
		{pid: 600, ppid: 1},    // someone else's process
		{pid: 601, ppid: 600},  // and its child
		{pid: 700, ppid: 9999}, // a parent that has gone
	}
	tests := []struct {
		name  string
		root  int
		procs []procEntry
		want  []int
		found bool
	}{
		{"job with children and a wrapped grandchild", 500, procs, []int{500, 501, 502, 90}, true},
		{"leaf", 502, procs, []int{502}, true},
		{"gone", 4242, procs, nil, false},
		{"root listed as its descendant's child mid-walk", 10,
			[]procEntry{{pid: 10, ppid: 11}, {pid: 11, ppid: 10}}, []int{10, 11}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			members, found := treeOf(tt.root, slices.Clone(tt.procs), nil)
			var got []int
			for _, m := range members {
				got = append(got, m.pid)
			}
			if found != tt.found || !slices.Equal(got, tt.want) {
				t.Errorf("treeOf(%d) = %v, %v; want %v, %v", tt.root, got, found, tt.want, tt.found)
			}
		})
	}
}

func TestParsePID(t *testing.T) {
	tests := []struct {
		in   string
		want int
		ok   bool
	}{
		{"1", 1, true}, {"4194304", 4194304, true}, {"self", 0, false}, {"12a", 0, false},
		{"", 0, false}, {"0", 0, false}, {"99999999999", 0, false},
	}
	for _, tt := range tests {
		if got, ok := parsePID([]byte(tt.in)); got != tt.want || ok != tt.ok {
			t.Errorf("parsePID(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// startTree starts `sh` with two children and returns once both exist: sh
// forks each `&` job before it runs the next command, so by the time it
// prints "ready" both sleeps are its children.
func startTree(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", "-c", "sleep 30 & sleep 30 & echo ready; wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("shell said %q, %v", line, err)
	}
	return cmd
}

// stopTree kills the group this test started (by its own id) and reaps sh.
func stopTree(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Errorf("kill group %d: %v", cmd.Process.Pid, err)
	}
	if err := cmd.Wait(); err == nil {
		t.Errorf("sh exited cleanly, want killed")
	}
}

func TestTreeProbeFollowsTheJobsChildren(t *testing.T) {
	cmd := startTree(t)
	p := NewTreeProbe()
	p.Watch(cmd.Process.Pid)
	if p.Name() != "tree" || p.Device() != timeline.JobDevice {
		t.Errorf("probe is %s/%s, want tree/job", p.Name(), p.Device())
	}
	r, err := p.Collect(t.Context())
	if err != nil || r.Lost {
		t.Fatalf("Collect: %v (lost %v)", err, r.Lost)
	}
	pids := p.PIDs()
	if len(pids) != 3 || pids[0] != cmd.Process.Pid {
		t.Errorf("PIDs = %v, want sh (%d) and its two sleeps", pids, cmd.Process.Pid)
	}
	smp := timeline.Sample{}.WithMetrics(r.Metrics)
	if rss, _ := smp.Value(timeline.Key{Name: timeline.ProcRSS, Device: timeline.JobDevice}); !(rss > 0) {
		t.Errorf("tree RSS = %v, want > 0", rss)
	}
	if cpu, ok := smp.Value(timeline.Key{Name: timeline.ProcCPUSecs, Device: timeline.JobDevice}); !ok || !(cpu >= 0) {
		t.Errorf("tree CPU = %v, want a number of seconds", cpu)
	}

	stopTree(t, cmd)
	r, err = p.Collect(t.Context())
	if !r.Lost || err == nil {
		t.Errorf("after the job ended: lost %v, err %v; want lost with a reason", r.Lost, err)
	}
	if pids := p.PIDs(); pids != nil {
		t.Errorf("PIDs after the job ended = %v, want none", pids)
	}
}

func BenchmarkTreeProbeCollect(b *testing.B) {
	p := NewTreeProbe()
	p.Watch(1)
	entries, err := p.scanner.scan()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(entries)), "procs")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Collect(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzEachDirentName(f *testing.F) {
	f.Add(direntRecords("1", "self", "4194304"))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, buf []byte) {
		eachDirentName(buf, func(name []byte) {
			if bytes.IndexByte(name, 0) >= 0 {
				t.Errorf("name %q holds a NUL", name)
			}
		})
	})
}

// direntRecords lays names out as getdents64 does, for the fuzz seeds.
func direntRecords(names ...string) []byte {
	var buf []byte
	for i, name := range names {
		reclen := (19 + len(name) + 1 + 7) &^ 7
		rec := make([]byte, reclen)
		binary.NativeEndian.PutUint64(rec[0:], uint64(i+100))
		binary.NativeEndian.PutUint64(rec[8:], uint64(i+1))
		binary.NativeEndian.PutUint16(rec[16:], uint16(reclen))
		rec[18] = 4 // DT_DIR
		copy(rec[19:], name)
		buf = append(buf, rec...)
	}
	return buf
}

func TestEachDirentName(t *testing.T) {
	var got []string
	buf := direntRecords("1", "self", "4194304")
	eachDirentName(append(buf, 9, 9, 9), func(name []byte) { got = append(got, string(name)) })
	if want := []string{"1", "self", "4194304"}; !slices.Equal(got, want) {
		t.Errorf("names = %q, want %q (and the torn record after them ignored)", got, want)
	}
}

func TestTreeProbeReadsNothingBeforeItIsToldWhichJob(t *testing.T) {
	p := NewTreeProbe()
	r, err := p.Collect(t.Context())
	if err != nil || r.Lost {
		t.Fatalf("Collect before Watch: %v (lost %v); want no data and no error", err, r.Lost)
	}
	for _, m := range r.Metrics {
		if !math.IsNaN(m.Value) {
			t.Errorf("%v = %v before Watch, want NaN", m.Key, m.Value)
		}
	}
	if pids := p.PIDs(); pids != nil {
		t.Errorf("PIDs before Watch = %v", pids)
	}
}

// A session of `gputop run` marks the GPU processes in the job's tree as
// the job's, and only those: the sample is the job's from its source on.
func TestTheJobsProcessesAreMarkedInTheSample(t *testing.T) {
	cmd := startTree(t)
	defer stopTree(t, cmd)
	tree := NewTreeProbe()
	tree.Watch(cmd.Process.Pid)
	procs := &scriptedProbe{name: "procs", answer: func(context.Context, int) (Reading, error) {
		return Reading{Processes: []timeline.Process{{GPU: 0, PID: cmd.Process.Pid}, {GPU: 1, PID: os.Getpid()}}}, nil
	}}
	s := NewSampler(SamplerConfig{Interval: 50 * time.Millisecond, Probes: []Probe{tree}, Slow: []Probe{procs}, SlowEvery: 2, Job: tree})
	defer s.Close()
	// The tree is read beside the process list, within the same tick
	// unless the walk of /proc is late.
	var last []bool
	for range 50 {
		smp := mustNext(t, s)
		if smp.Processes == nil {
			continue
		}
		last = last[:0]
		for _, p := range smp.Processes {
			last = append(last, p.InJob)
		}
		if last[1] {
			t.Fatalf("the test's own process is marked as the job's")
		}
		if last[0] {
			return
		}
	}
	t.Errorf("in the job: %v, want the job's shell only", last)
}
