package ui

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/procs"
)

// procFixture is fixtureSamples with the process lists a shared node
// gives: a Kubernetes pod's two ranks on GPU0 and GPU1 (started before the
// session), a Slurm job's evaluation on GPU2 that ends at 09:01:20, a
// Docker container's server on GPU4, and a process on GPU6 the host
// could not describe (another PID namespace).
func procFixture() []timeline.Sample {
	ss := fixtureSamples(120)
	pod := &timeline.Workload{Runtime: "containerd", Container: "2032491dcae3",
		Pod: "55c6c714-b240-4dec-9a45-57b61696ab6e", QoS: "burstable"}
	started := fixtureStart.Add(-90 * time.Second)
	nan := nanValue()
	for i := range ss {
		if ss[i].Processes == nil {
			continue
		}
		procs := []timeline.Process{
			{GPU: 0, PID: 4100, User: "ml", Command: "python train.py --rank 0", GPUMem: 68 << 30, Util: 85, CPU: 104,
				RSS: 12 << 30, Started: started, Workload: pod},
			{GPU: 1, PID: 4101, User: "ml", Command: "python train.py --rank 1", GPUMem: 20 << 30, Util: 0, CPU: 3,
				RSS: 9 << 30, Started: started, Workload: pod},
			{GPU: 4, PID: 7000, User: "carol", Command: "python serve.py --port 8000", GPUMem: 10 << 30, Util: 12, CPU: 8,
				RSS: 2 << 30, Started: fixtureStart.Add(-time.Hour), Workload: &timeline.Workload{Runtime: "docker", Container: "5dace3de0735"}},
			{GPU: 6, PID: 99, GPUMem: 1 << 30, Util: nan, CPU: nan, RSS: nan},
		}
		if i >= 10 && i <= 80 {
			procs = append(procs, timeline.Process{GPU: 2, PID: 5151, User: "bob",
				Command: "srun python eval.py --ckpt /scratch/bob/ckpt/step_1000.pt --batch-size 64 --num-workers 8 " +
					"--precision bf16 --output /scratch/bob/eval/results.json --log-every 10 --seed 1234",
				GPUMem: 30 << 30, Util: 40, CPU: 95, RSS: 6 << 30, Started: fixtureStart.Add(9 * time.Second),
				Workload: &timeline.Workload{Job: "4749", Step: "0"}})
		}
		ss[i].Processes = procs
	}
	return ss
}

func nanValue() float64 {
	var zero float64
	return zero / zero
}

// fakeKiller records what it was asked and answers err. It sends
// htop's signals, or SIGTERM alone with termOnly.
type fakeKiller struct {
	calls    []string
	err      error
	termOnly bool
}

func (k *fakeKiller) Signals() []syscall.Signal {
	if k.termOnly {
		return []syscall.Signal{syscall.SIGTERM}
	}
	return []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGKILL, syscall.SIGUSR1, syscall.SIGUSR2}
}

func (k *fakeKiller) Signal(pid int, started time.Time, sig syscall.Signal) error {
	call := fmt.Sprintf("%d@%s", pid, started.UTC().Format("15:04:05"))
	if sig != syscall.SIGTERM {
		call += " " + procs.SignalName(sig)
	}
	k.calls = append(k.calls, call)
	return k.err
}

func TestGoldenProcessTable(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		for _, c := range []struct {
			name string
			opts Options
			keys []string
		}{
			// Zoomed out to the whole session, where the Slurm job's
			// process ended.
			{"procs", Options{}, []string{"-", "-", "-"}},
			{"procs_focus", Options{Killer: &fakeKiller{}}, []string{"-", "-", "-", "p", "down", "down"}},
			{"procs_kill", Options{Killer: &fakeKiller{}}, []string{"p", "k"}},
			{"procs_readonly", Options{Killer: &fakeKiller{}, ReadOnly: true}, []string{"-", "-", "-", "p", "end"}},
		} {
			name := fmt.Sprintf("%s_%dx%d", c.name, size[0], size[1])
			t.Run(name, func(t *testing.T) {
				m := newTestModel(t, timeline.Live, procFixture(), size[0], size[1], c.opts)
				press(m, c.keys...)
				got := screen(m)
				checkScreenFits(t, got, size[0], size[1])
				checkGolden(t, name, got)
			})
		}
	}
}

// TestProcessTableKeepsWhatEnded: the Slurm job's process, gone since
// 09:01:20, is listed after those still running, dimmed, with when it
// was last seen; the table says how many ended.
func TestProcessTableKeepsWhatEnded(t *testing.T) {
	m := newTestModel(t, timeline.Live, procFixture(), 200, 50, Options{})
	press(m, "-", "-", "-", "p")
	got := screen(m)
	if !strings.Contains(got, "1 ended in the window") {
		t.Errorf("the title does not count the ended process:\n%s", got)
	}
	var eval, last string
	for _, l := range strings.Split(m.View(), "\n") {
		if strings.Contains(l, "5151") {
			eval = l
		}
		if strings.Contains(l, " 99 ") {
			last = l
		}
	}
	if dimmed, _, _ := strings.Cut(m.theme.Dim.Paint("x"), "x"); !strings.HasPrefix(eval, dimmed) || !strings.Contains(eval, "09:01:20") || !strings.Contains(eval, "job 4749.0") {
		t.Errorf("the ended process is not dimmed with its end and job: %q", eval)
	}
	if strings.Index(m.View(), eval) < strings.Index(m.View(), last) {
		t.Error("the ended process is listed before a running one")
	}
}

func TestProcessTableNavigationAndSort(t *testing.T) {
	m := newTestModel(t, timeline.Live, procFixture(), 120, 40, Options{})
	pids := func() []int {
		var out []int
		for _, sp := range m.frame().procSpans() {
			out = append(out, sp.PID)
		}
		return out
	}
	press(m, "-", "-", "-", "p")
	if got := fmt.Sprint(pids()); got != "[4100 4101 7000 99 5151]" {
		t.Errorf("by GPU memory: %s", got)
	}
	press(m, "I")
	if got := fmt.Sprint(pids()); got != "[99 7000 4101 4100 5151]" {
		t.Errorf("inverted: %s (running ones stay first)", got)
	}
	press(m, "I", "s", "s", "s") // util, CPU, PID
	if got := fmt.Sprint(pids()); got != "[99 4100 4101 7000 5151]" || !strings.Contains(screen(m), "by PID") {
		t.Errorf("by PID: %s\n%s", got, screen(m))
	}
	press(m, "f6") // user: "" first
	if got := fmt.Sprint(pids()); got != "[99 7000 4100 4101 5151]" {
		t.Errorf("by user: %s", got)
	}

	press(m, "p", "p")
	if p, ok := m.procs.Chosen(m.frame().procSpans()); !ok || p.PID != 99 {
		t.Fatalf("p again keeps the chosen process, the first, got %+v", p)
	}
	press(m, "down", "down")
	if p, _ := m.procs.Chosen(m.frame().procSpans()); p.PID != 4100 {
		t.Errorf("down down: %d", p.PID)
	}
	// While the table has the arrows, the GPUs do not move.
	if m.list.GPU != 0 {
		t.Errorf("the GPU selection moved to %d", m.list.GPU)
	}
	press(m, "end")
	if p, _ := m.procs.Chosen(m.frame().procSpans()); p.PID != 5151 || !strings.Contains(screen(m), "--seed 1234") {
		t.Errorf("end: %d; the whole command line shows:\n%s", p.PID, screen(m))
	}
	press(m, "home", "esc", "down")
	if m.procs.Focus || m.list.GPU != 1 {
		t.Errorf("esc gives the arrows back to the GPUs (focus %v, GPU %d)", m.procs.Focus, m.list.GPU)
	}
}

func TestKillAsksFirst(t *testing.T) {
	k := &fakeKiller{}
	m := newTestModel(t, timeline.Live, procFixture(), 120, 40, Options{Killer: k})
	press(m, "p", "k")
	if s := screen(m); !strings.Contains(s, "Send SIGTERM to PID 4100 (ml)?  python train.py --rank 0") ||
		!strings.Contains(s, " TERM INT HUP KILL USR1 USR2  ←→ signal, y send, n don't") {
		t.Fatalf("k asks first:\n%s", screen(m))
	}
	press(m, "x", "q", "k") // no other key answers
	if len(k.calls) != 0 || !m.procs.confirm.Active {
		t.Fatalf("a stray key answered the question: %v", k.calls)
	}
	press(m, "n")
	if len(k.calls) != 0 || !strings.Contains(screen(m), "not signalled") {
		t.Fatalf("n sends nothing: %v", k.calls)
	}
	press(m, "k", "y")
	if fmt.Sprint(k.calls) != "[4100@08:58:30]" || !strings.Contains(screen(m), "SIGTERM sent to PID 4100") {
		t.Errorf("y sends SIGTERM to the chosen process and its start: %v\n%s", k.calls, screen(m))
	}

	// As htop's k: the arrows choose the signal, TERM first.
	press(m, "k", "right", "right", "right")
	if !strings.Contains(screen(m), "Send SIGKILL to PID 4100") {
		t.Fatalf("right three times chooses KILL:\n%s", screen(m))
	}
	press(m, "left")
	m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if fmt.Sprint(k.calls) != "[4100@08:58:30 4100@08:58:30 HUP]" || !strings.Contains(screen(m), "SIGHUP sent to PID 4100") {
		t.Errorf("enter sends the chosen signal, HUP: %v\n%s", k.calls, screen(m))
	}
	k.calls = k.calls[:1]

	k.err = errors.New("PID 4100 belongs to ml, not you: gputop signals only your own processes")
	press(m, "k", "y")
	if !strings.Contains(screen(m), "not signalled: PID 4100 belongs to ml") {
		t.Errorf("a refused kill says why:\n%s", screen(m))
	}

	press(m, "end", "k")
	if len(k.calls) != 2 || m.procs.confirm.Active || !strings.Contains(screen(m), "no longer holds GPU2") {
		t.Errorf("an ended process is not signalled: %v\n%s", k.calls, screen(m))
	}
}

func TestKillNeverInReplayOrDemoOrReadOnly(t *testing.T) {
	for _, c := range []struct {
		kind timeline.SourceKind
		opts Options
		why  string
	}{
		{timeline.Replay, Options{Killer: &fakeKiller{}}, "live session only"},
		{timeline.Imported, Options{Killer: &fakeKiller{}}, "live session only"},
		{timeline.Demo, Options{Killer: &fakeKiller{}}, "live session only"},
		{timeline.Live, Options{}, "live session only"},
		{timeline.Live, Options{Killer: &fakeKiller{}, ReadOnly: true}, ""},
	} {
		m := newTestModel(t, c.kind, procFixture(), 120, 40, c.opts)
		press(m, "p")
		if !m.procs.Focus {
			t.Fatalf("%v: p does not open the table", c.kind)
		}
		if strings.Contains(screen(m), " k kill") {
			t.Errorf("%v %+v: the footer offers k", c.kind, c.opts)
		}
		press(m, "k")
		if m.procs.confirm.Active {
			t.Errorf("%v %+v: k asks to signal", c.kind, c.opts)
		}
		if c.why != "" && !strings.Contains(screen(m), c.why) {
			t.Errorf("%v: k does not say why not:\n%s", c.kind, screen(m))
		}
		if k, ok := c.opts.Killer.(*fakeKiller); ok && len(k.calls) > 0 {
			t.Errorf("%v: signalled %v", c.kind, k.calls)
		}
		if c.opts.ReadOnly {
			press(m, "?")
			for i := 0; i < 120; i++ {
				press(m, "down")
			}
			if help := strings.Join(m.helpLines(), "\n"); strings.Contains(help, "SIGTERM") {
				t.Errorf("--readonly: the help still lists k")
			}
		}
	}
}

// / in the process table filters it as it is typed, by command, user or
// PID; esc puts the filter before back; outside the table / is the time
// jump.
func TestProcessFilter(t *testing.T) {
	m := newTestModel(t, timeline.Live, procFixture(), 120, 40, Options{})
	press(m, "/")
	if !m.prompt.Active() || !strings.Contains(footerOf(m), "go to time") {
		t.Fatalf("outside the table / asks for a time: %q", footerOf(m))
	}
	m.Update(tea.KeyMsg{Type: tea.KeyEsc})
	press(m, "p", "/", "s", "e", "r", "v")
	s := screen(m)
	if !strings.Contains(s, `filter "serv": 1 of`) || !strings.Contains(s, "python serve.py") || strings.Contains(s, "python train.py --rank 0") {
		t.Fatalf("typing narrows the table to serve.py:\n%s", s)
	}
	m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if m.procs.Filter != "serv" || m.prompt.Active() {
		t.Fatalf("enter keeps the filter: %q", m.procs.Filter)
	}
	press(m, "/")
	m.Update(tea.KeyMsg{Type: tea.KeyCtrlU})
	press(m, "4", "1", "0", "0")
	if s := screen(m); !strings.Contains(s, " 4100 ") || strings.Contains(s, "python serve.py") {
		t.Fatalf("a PID filters too:\n%s", s)
	}
	m.Update(tea.KeyMsg{Type: tea.KeyEsc})
	if m.procs.Filter != "serv" {
		t.Fatalf("esc puts the filter before back, not %q", m.procs.Filter)
	}
	press(m, "/")
	m.Update(tea.KeyMsg{Type: tea.KeyCtrlU})
	m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if s := screen(m); m.procs.Filter != "" || strings.Contains(s, `filter "`) || !strings.Contains(s, "python train.py --rank 0") {
		t.Fatalf("an empty filter shows every process:\n%s", s)
	}
}
