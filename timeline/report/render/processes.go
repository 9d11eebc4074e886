package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gputop-dev/gputop/timeline/report"
)

// The processes section of every form, and the rows every form lists.

// repMaxTextProcesses bounds the text and markdown tables; the JSON lists
// every process.
const repMaxTextProcesses = 20

// lifetime is "0:00:05-0:12:30" or "0:00:05-end"; a start before the
// report shows as "before".
func lifetime(p report.ReportProcess) string {
	start := repAt(p.Start)
	if !p.Start.Unknown() && p.Start < 0 {
		start = "before"
	}
	end := repAt(p.LastSeen)
	if p.Running {
		end = "end"
	}
	return start + "-" + end
}

// repProcessRows is the rows a table shows and a line on the rest.
func (r *doc) repProcessRows() ([]report.ReportProcess, string) {
	if len(r.Processes) <= repMaxTextProcesses {
		return r.Processes, ""
	}
	rest := r.Processes[repMaxTextProcesses:]
	return r.Processes[:repMaxTextProcesses], fmt.Sprintf("%d more processes (the JSON report lists every one)", len(rest))
}

func (r *doc) textProcesses(t repText) {
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
		w := p.Workload.Workload()
		line := fmt.Sprintf("%s  %-8s  %-17s %9s  %-16s %s", gpuPID(r.processGPU(p.GPU), strconv.Itoa(p.PID)), Cut(repClean(p.User), 8, "~"), lifetime(p),
			repBytes(p.PeakGPUMem), Cut(w.Short(), 16, "~"), repClean(p.Command))
		if r.TextWidth >= 0 { // cut to the terminal's width, at least 80
			line = Cut(line, max(r.TextWidth, repTextWidth), "~")
		}
		t.line(line)
	}
	if rest != "" {
		t.line("... " + rest)
	}
}

func (r *doc) processes(f form) {
	if len(r.Processes) == 0 {
		return
	}
	f.section("Processes")
	t := Table{Head: []string{"GPU", "PID", "user", "lifetime", "peak GPU memory", "container, pod or job", "command"},
		Num: []bool{true, true, false, false, true, false, false}}
	rows, rest := r.repProcessRows()
	for _, q := range rows {
		w := q.Workload.Workload()
		t.add(r.processGPU(q.GPU), strconv.Itoa(q.PID), q.User, lifetime(q), repBytes(q.PeakGPUMem), w.String(), q.Command)
	}
	f.table(t)
	if rest != "" {
		f.legend(f.own(repCapital(rest)) + ".")
	}
	f.end()
}

// processGPU is a process's GPU in the tables: its index, or a MIG
// instance's parent and profile, "0/1g.10gb".
func (r *doc) processGPU(idx int) string {
	return r.gpuNames().Column(idx, func(i int) int { return i })
}

// Cut cuts s to n runes, ending in end when it had more (where n leaves
// room for it): "~" in the text report's columns and the diff's, "..." in
// its longer texts (a label, a tooltip).
func Cut(s string, n int, end string) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= len(end) {
		return string(r[:n])
	}
	return string(r[:n-len(end)]) + end
}
