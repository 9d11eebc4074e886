package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gputop-dev/gputop/timeline"
)

// ReportProcess is one process that held a GPU during the report: from the
// process lists of the slower sampling tier, so its times are good to a
// few seconds (the tier's interval).
type ReportProcess struct {
	// GPU is its GPU's index, that of its MIG instance on a MIG-enabled
	// GPU, whose profile and parent MIGProfile and MIGParent repeat.
	GPU        int    `json:"gpu"`
	MIGProfile string `json:"mig_profile,omitempty"`
	MIGParent  *int   `json:"mig_parent,omitempty"`
	PID        int    `json:"pid"`
	User       string `json:"user"`
	Command    string `json:"command"`
	// Start is when the process started, where the host said, else when it
	// was first seen; negative when before the report's start.
	Start Number `json:"start_s"`
	// FirstSeen and LastSeen are the first and last process lists that
	// held it; Running says the last list of the report still did.
	FirstSeen Number `json:"first_seen_s"`
	LastSeen  Number `json:"last_seen_s"`
	Running   bool   `json:"running_at_end"`
	// PeakGPUMem is the most GPU memory it held.
	PeakGPUMem Number `json:"peak_gpu_mem_bytes"`
	// Workload is its container, pod, Slurm job or session; null when its
	// cgroup named none (or it was not read).
	Workload *ReportWorkload `json:"workload"`
}

// ReportWorkload is timeline.Workload: empty strings are unknown.
type ReportWorkload struct {
	Runtime   string `json:"runtime"`
	Container string `json:"container"`
	Pod       string `json:"pod_uid"`
	QoS       string `json:"qos"`
	SlurmJob  string `json:"slurm_job"`
	SlurmStep string `json:"slurm_step"`
	Session   string `json:"session"`
}

// repMaxTextProcesses bounds the text and markdown tables; the JSON lists
// every process.
const repMaxTextProcesses = 20

// processes lists every process of the report's stretch.
func (b *repBuilder) processes() {
	for _, sp := range b.s.ProcessSpans(b.from, b.to) {
		p := ReportProcess{GPU: sp.GPU, PID: sp.PID, User: sp.User, Command: sp.Command,
			Start: b.rel(sp.Start()), FirstSeen: b.rel(sp.FirstSeen), LastSeen: b.rel(sp.LastSeen),
			Running: sp.Running, PeakGPUMem: Number(sp.PeakGPUMem)}
		p.Workload = WorkloadOf(sp.Workload)
		p.MIGProfile, p.MIGParent = MIGOf(b.info, sp.GPU)
		b.r.Processes = append(b.r.Processes, p)
	}
}

// WorkloadOf is w for JSON: nil when it names nothing.
func WorkloadOf(w *timeline.Workload) *ReportWorkload {
	if w.IsZero() {
		return nil
	}
	return &ReportWorkload{Runtime: w.Runtime, Container: w.Container, Pod: w.Pod, QoS: w.QoS,
		SlurmJob: w.Job, SlurmStep: w.Step, Session: w.Session}
}

// workload is the process's workload back as the timeline has it.
func (p *ReportProcess) workload() *timeline.Workload { return p.Workload.Workload() }

// Workload is w back as the timeline has it; nil is none.
func (w *ReportWorkload) Workload() *timeline.Workload {
	if w == nil {
		return nil
	}
	return &timeline.Workload{Runtime: w.Runtime, Container: w.Container, Pod: w.Pod, QoS: w.QoS,
		Job: w.SlurmJob, Step: w.SlurmStep, Session: w.Session}
}

// lifetime is "0:00:05-0:12:30" or "0:00:05-end"; a start before the
// report shows as "before".
func (p *ReportProcess) lifetime() string {
	start := repAt(p.Start)
	if !repUnknown(p.Start) && p.Start < 0 {
		start = "before"
	}
	end := repAt(p.LastSeen)
	if p.Running {
		end = "end"
	}
	return start + "-" + end
}

// repProcessRows is the rows a table shows and a line on the rest.
func (r *Report) repProcessRows() ([]ReportProcess, string) {
	if len(r.Processes) <= repMaxTextProcesses {
		return r.Processes, ""
	}
	rest := r.Processes[repMaxTextProcesses:]
	return r.Processes[:repMaxTextProcesses], fmt.Sprintf("%d more processes (the JSON report lists every one)", len(rest))
}

func (r *Report) textProcesses(t repText) {
	if len(r.Processes) == 0 {
		return
	}
	t.line("")
	t.line("PROCESSES (lifetime as seen on the GPU; peak GPU memory)")
	// GPU and PID share one column, so a MIG slice's longer name takes
	// the room a short PID leaves: "0/1g.10gb 6021", "3         4103".
	width := 3 + 1 + 7
	for _, p := range r.Processes {
		width = max(width, len(r.processGPU(p.GPU))+1+len(strconv.Itoa(p.PID)))
	}
	gpuPID := func(gpu, pid string) string { return gpu + strings.Repeat(" ", width-len(gpu)-len(pid)) + pid }
	t.f("%s  %-8s  %-17s %9s  %-16s %s", gpuPID("GPU", "PID"), "USER", "LIFETIME", "PEAK MEM", "WHERE", "COMMAND")
	rows, rest := r.repProcessRows()
	for _, p := range rows {
		w := p.workload()
		line := fmt.Sprintf("%s  %-8s  %-17s %9s  %-16s %s", gpuPID(r.processGPU(p.GPU), strconv.Itoa(p.PID)), repCut(repClean(p.User), 8), p.lifetime(),
			repBytes(p.PeakGPUMem), repCut(w.Short(), 16), repClean(p.Command))
		switch {
		case r.textWidth < 0:
			t.line(line)
		case r.textWidth > repTextWidth:
			t.line(repCut(line, r.textWidth))
		default:
			t.line(repCut(line, repTextWidth))
		}
	}
	if rest != "" {
		t.line("... " + rest)
	}
}

func (r *Report) mdProcesses(p func(string, ...any)) {
	if len(r.Processes) == 0 {
		return
	}
	p("")
	p("### Processes")
	p("")
	p("| GPU | PID | user | lifetime | peak GPU memory | container, pod or job | command |")
	p("|---:|---:|---|---|---:|---|---|")
	rows, rest := r.repProcessRows()
	for _, q := range rows {
		w := q.workload()
		p("| %s | %d | %s | %s | %s | %s | %s |", r.processGPU(q.GPU), q.PID, repMD(q.User), q.lifetime(), repBytes(q.PeakGPUMem),
			repMD(w.String()), repMD(q.Command))
	}
	if rest != "" {
		p("")
		p("%s.", repCapital(rest))
	}
}

// processGPU is a process's GPU in the tables: its index, or a MIG
// instance's parent and profile, "0/1g.10gb".
func (r *Report) processGPU(idx int) string {
	return r.gpuNames().Column(idx, func(i int) int { return i })
}

// repCut cuts s to n runes, ending in "~" when it had more.
func repCut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= 1 {
		return string(r[:n])
	}
	return string(r[:n-1]) + "~"
}
