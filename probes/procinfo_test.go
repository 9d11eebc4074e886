package probes

import (
	"fmt"
	"math"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

// fakeProc writes a /proc/PID with the given start time and CPU ticks.
func fakeProc(t *testing.T, root string, pid int, startTime, ticks uint64, cmdline string, uid int) {
	t.Helper()
	dir := filepath.Join(root, fmt.Sprint(pid))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	stat := fmt.Sprintf("%d (python3) S 1 %d %d 0 -1 0 0 0 0 0 %d 0 0 0 20 0 1 0 %d 0 25600 0\n", pid, pid, pid, ticks, startTime)
	status := fmt.Sprintf("Name:\tpython3\nUmask:\t0022\nState:\tS (sleeping)\nUid:\t%d\t%d\t%d\t%d\n", uid, uid, uid, uid)
	for name, text := range map[string]string{"stat": stat, "cmdline": cmdline, "status": status} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// steppingClock is a now func that moves by step on every call.
func steppingClock(start time.Time, step time.Duration) func() time.Time {
	now := start
	return func() time.Time {
		t := now
		now = now.Add(step)
		return t
	}
}

func TestProcessLookupReadsProc(t *testing.T) {
	root := t.TempDir()
	fakeProc(t, root, 4242, 1000, 100, "python3\x00train.py\x00--batch-size\x0064\x00", 0)
	l := newProcessLookup(root, true, steppingClock(time.Unix(0, 0), 2*time.Second))

	first, ok := l.Lookup(4242)
	if !ok {
		t.Fatal("pid 4242 not found")
	}
	want := ProcessInfo{User: "root", Command: "python3 train.py --batch-size 64", RSS: 25600 * pageSize}
	if first.User != want.User || first.Command != want.Command || first.RSS != want.RSS || !math.IsNaN(first.CPU) {
		t.Errorf("first lookup = %+v, want %+v with CPU NaN", first, want)
	}

	// 150 ticks more over the 2 s between lookups: 1.5 s of CPU, 75 % of a core.
	fakeProc(t, root, 4242, 1000, 250, "python3\x00train.py\x00", 0)
	second, _ := l.Lookup(4242)
	if wantCPU := 150 / ticksPerSecond() / 2 * 100; math.Abs(second.CPU-wantCPU) > 1e-9 {
		t.Errorf("CPU = %v %%, want %v %%", second.CPU, wantCPU)
	}

	// The same pid, a new process: no share from the old one's ticks.
	fakeProc(t, root, 4242, 5000, 10, "bash\x00", 0)
	if third, _ := l.Lookup(4242); !math.IsNaN(third.CPU) || third.Command != "bash" {
		t.Errorf("reused pid: %+v, want CPU NaN and the new command", third)
	}

	if _, ok := l.Lookup(4243); ok {
		t.Error("a pid without /proc entry was found")
	}
}

// ticksPerSecond is USER_HZ as the probes use it.
func ticksPerSecond() float64 { return 1 / ticksToSeconds(1) }

func TestProcessLookupForgetsOldPIDs(t *testing.T) {
	root := t.TempDir()
	fakeProc(t, root, 10, 1, 100, "a\x00", 0)
	fakeProc(t, root, 20, 1, 100, "b\x00", 0)
	now := time.Unix(0, 0)
	l := newProcessLookup(root, true, func() time.Time { return now })
	l.Lookup(10)
	l.Lookup(20)
	for range 3 { // pid 20 keeps being asked about, pid 10 not
		now = now.Add(forgetAfter / 2)
		l.Lookup(20)
	}
	if _, kept := l.seen[10]; kept || len(l.seen) != 1 {
		t.Errorf("remembered pids %v after %v, want only 20", l.seen, 3*forgetAfter/2)
	}
	if info, _ := l.Lookup(10); !math.IsNaN(info.CPU) {
		t.Errorf("forgotten pid came back with CPU %v, want NaN", info.CPU)
	}
}

func TestProcessLookupOfThisProcess(t *testing.T) {
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	l := NewProcessLookup()
	info, ok := l.Lookup(os.Getpid())
	if !ok {
		t.Skip("this test runs in a PID namespace of its own: host PIDs are not visible")
	}
	if info.User != me.Username || !strings.Contains(info.Command, filepath.Base(os.Args[0])) || !(info.RSS > 0) {
		t.Errorf("lookup of this test = %+v, want user %s, command with %s", info, me.Username, filepath.Base(os.Args[0]))
	}
}

func TestProcessLookupInAContainerSaysNotVisible(t *testing.T) {
	l := newProcessLookup("/proc", false, time.Now)
	if _, ok := l.Lookup(os.Getpid()); ok {
		t.Error("lookup in a PID namespace of its own answered; host PIDs would name the wrong processes")
	}
}

func TestCommandLine(t *testing.T) {
	long := strings.Repeat("x", 300)
	tests := []struct {
		name, cmdline, comm, want string
	}{
		{"arguments", "python3\x00-m\x00torch.distributed.run\x00train.py\x00", "python3", "python3 -m torch.distributed.run train.py"},
		{"no trailing NUL", "sleep\x005", "sleep", "sleep 5"},
		{"empty arguments collapse", "a\x00\x00\x00b\x00", "a", "a b"},
		{"kernel thread", "", "kworker/0:1", "[kworker/0:1]"},
		{"nothing known", "", "", ""},
		{"terminal escapes are defused", "evil\x00\x1b[2J\x00", "evil", "evil [2J"},
		{"newline in an argument", "sh\x00-c\x00echo a\necho b\x00", "sh", "sh -c echo a echo b"},
		{"not UTF-8", "caf\xe9\x00", "caf", "caf\ufffd"},
		{"long", long, "x", long[:maxCommandBytes]},
		{"cut at the limit", strings.Repeat("ab\x00", 100), "ab", strings.Repeat("ab ", 100)[:maxCommandBytes]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := commandLine([]byte(tt.cmdline), tt.comm); got != tt.want {
				t.Errorf("commandLine(%q, %q) = %q, want %q", tt.cmdline, tt.comm, got, tt.want)
			}
		})
	}
}

func FuzzCommandLine(f *testing.F) {
	f.Add([]byte("python3\x00train.py\x00"), "python3")
	f.Add([]byte(""), "kthreadd")
	f.Fuzz(func(t *testing.T, cmdline []byte, comm string) {
		got := commandLine(cmdline, comm)
		if !utf8.ValidString(got) || len(got) > maxCommandBytes+2 {
			t.Errorf("commandLine = %q: not UTF-8 or too long", got)
		}
		if strings.ContainsFunc(got, unicode.IsControl) || got != strings.TrimSpace(got) {
			t.Errorf("commandLine = %q: control characters or untrimmed", got)
		}
	})
}

func TestParseStatusUID(t *testing.T) {
	tests := []struct {
		in   string
		want uint32
		ok   bool
	}{
		{"Name:\tbash\nUid:\t1000\t1001\t1002\t1003\nGid:\t100\t100\t100\t100\n", 1000, true},
		{"Uid:\t0\t0\t0\t0", 0, true},
		{"Name:\tbash\nGid:\t100\n", 0, false},
		{"Uid:\tnobody\n", 0, false},
		{"Uid:\t4294967296\n", 0, false},
	}
	for _, tt := range tests {
		if got, ok := parseStatusUID([]byte(tt.in)); got != tt.want || ok != tt.ok {
			t.Errorf("parseStatusUID(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzParseStatusUID(f *testing.F) {
	f.Add([]byte("Name:\tbash\nUid:\t1000\t1000\t1000\t1000\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if uid, ok := parseStatusUID(data); !ok && uid != 0 {
			t.Errorf("no uid found, yet %d returned", uid)
		}
	})
}

// TestProcessLookupWorkloadAndStart: the lookup names the process's
// container from its cgroup (once per process: a later process with the
// same PID is read again) and its start from the boot time.
func TestProcessLookupWorkloadAndStart(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "stat"), []byte("cpu  1 2 3 4\nbtime 1700000000\nprocesses 9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cgroup := func(text string) {
		if err := os.WriteFile(filepath.Join(root, "4242", "cgroup"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fakeProc(t, root, 4242, uint64(ticksPerSecond()*100), 100, "python3\x00", 0)
	cgroup("0::/system.slice/docker-a2ffe0e97ac22657a2a023ad628e9df837c38a03b1ebc904d3f6d644eb1a1a81.scope\n")
	l := newProcessLookup(root, true, steppingClock(time.Unix(1700000500, 0), time.Second))

	info, ok := l.Lookup(4242)
	if !ok {
		t.Fatal("pid 4242 not found")
	}
	if info.Workload.Container != "a2ffe0e97ac2" || info.Workload.Runtime != "docker" {
		t.Errorf("workload = %+v, want docker a2ffe0e97ac2", info.Workload)
	}
	if want := time.Unix(1700000100, 0); !info.Started.Equal(want) {
		t.Errorf("started = %v, want %v (boot + 100 s)", info.Started, want)
	}

	// The same process: its cgroup is not read again.
	cgroup("0::/init.scope\n")
	if info, _ = l.Lookup(4242); info.Workload.Container != "a2ffe0e97ac2" {
		t.Errorf("same process: workload = %+v, want the first answer kept", info.Workload)
	}
	// A new process under the same PID: read again.
	fakeProc(t, root, 4242, uint64(ticksPerSecond()*200), 100, "python3\x00", 0)
	if info, _ = l.Lookup(4242); !info.Workload.IsZero() {
		t.Errorf("new process: workload = %+v, want none (init.scope)", info.Workload)
	}
}
