package render

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/report/reporttest"
)

// repProcessSamples are the checkpoint run with a process list every 5 s:
// a pod's trainer on GPU0 and GPU1 throughout (started before the run), a
// Slurm job's evaluation on GPU2 from 40 s that exits at 150 s, a Docker
// container's process on GPU4 from 200 s, and one whose host details are
// unknown.
func repProcessSamples() []timeline.Sample {
	ss := reporttest.CheckpointSamples()
	pod := &timeline.Workload{Runtime: "containerd", Container: "2032491dcae3", Pod: "55c6c714-b240-4dec-9a45-57b61696ab6e", QoS: "burstable"}
	nan := math.NaN()
	for i := range ss {
		sec := int(ss[i].At.Sub(reporttest.At0) / time.Second)
		if sec%5 != 0 {
			continue
		}
		mem := float64(60<<30) + float64(sec)*(1<<20)
		procs := []timeline.Process{
			{GPU: 0, PID: 4242, User: "alice", Command: "python train.py --config big.yaml", GPUMem: mem, Util: 90, CPU: 100, RSS: 8 << 30,
				Started: reporttest.At0.Add(-90 * time.Second), Workload: pod},
			{GPU: 1, PID: 4242, User: "alice", Command: "python train.py --config big.yaml", GPUMem: mem / 2, Util: 40, CPU: 100, RSS: 8 << 30,
				Started: reporttest.At0.Add(-90 * time.Second), Workload: pod},
			{GPU: 6, PID: 99, GPUMem: 1 << 30, Util: nan, CPU: nan, RSS: nan},
		}
		if sec >= 40 && sec <= 150 {
			procs = append(procs, timeline.Process{GPU: 2, PID: 5151, User: "bob", Command: "srun python eval.py", GPUMem: 12 << 30,
				Util: 30, CPU: 50, RSS: 2 << 30, Started: reporttest.At0.Add(38 * time.Second), Workload: &timeline.Workload{Job: "123", Step: "0"}})
		}
		if sec >= 200 {
			procs = append(procs, timeline.Process{GPU: 4, PID: 7000, User: "carol", Command: "python serve.py", GPUMem: 20 << 30,
				Util: 10, CPU: 5, RSS: 1 << 30, Workload: &timeline.Workload{Runtime: "docker", Container: "5dace3de0735"}})
		}
		ss[i].Processes = procs
	}
	return ss
}

func TestReportProcesses(t *testing.T) {
	ss := repProcessSamples()
	r := report.NewReport(reporttest.Store(ss), reporttest.CheckpointInfo(), repCheckpointAnalysis(), report.ReportOptions{})
	if len(r.Processes) != 5 {
		t.Fatalf("%d processes, want 5: %+v", len(r.Processes), r.Processes)
	}
	byPID := map[[2]int]report.ReportProcess{}
	for _, p := range r.Processes {
		byPID[[2]int{p.GPU, p.PID}] = p
	}
	eval := byPID[[2]int{2, 5151}]
	if eval.Start != 38 || eval.FirstSeen != 40 || eval.LastSeen != 150 || eval.Running || eval.PeakGPUMem != 12<<30 ||
		eval.Workload == nil || eval.Workload.SlurmJob != "123" {
		t.Errorf("the Slurm job's process: %+v", eval)
	}
	train := byPID[[2]int{0, 4242}]
	if train.Start != -90 || !train.Running || train.PeakGPUMem != report.Number(60<<30+300*(1<<20)) || train.Workload.Pod == "" {
		t.Errorf("the pod's trainer: %+v", train)
	}
	if unknown := byPID[[2]int{6, 99}]; unknown.Workload != nil || unknown.Start != 0 {
		t.Errorf("the unknown process: %+v", unknown)
	}

	text, md, js := repRender(t, r)
	repCheckText(t, text)
	if !strings.Contains(string(text), "before-end") || !strings.Contains(string(text), "0:00:38-0:02:30") {
		t.Errorf("lifetimes missing from the text:\n%s", text)
	}
	repGolden(t, "report_processes.txt.golden", text)
	repGolden(t, "report_processes.md.golden", md)
	repGolden(t, "report_processes.json.golden", js)
}

// A command line is cut at the terminal's width, and never where the report
// goes to a file or a pipe (TextWidth < 0), where tools read it whole.
func TestProcessCommandCutOnlyOnATerminal(t *testing.T) {
	long := "python train.py --config configs/llama-8b/pretrain.yaml --data /mnt/shards --resume"
	r := &report.Report{Processes: []report.ReportProcess{{GPU: 0, PID: 4242, User: "alice", Command: long, Running: true}}}
	for _, tt := range []struct {
		width int
		whole bool
	}{{-1, true}, {0, false}, {80, false}, {200, true}} {
		r.TextWidth = tt.width
		buf := new(bytes.Buffer)
		(&doc{Report: r}).textProcesses(repText{b: buf})
		got := buf.String()
		if strings.Contains(got, long) != tt.whole {
			t.Errorf("width %d: the command whole is %v, want %v:\n%s", tt.width, !tt.whole, tt.whole, got)
		}
		for _, line := range strings.Split(got, "\n") {
			if n := len([]rune(line)); tt.width >= 0 && n > max(tt.width, repTextWidth) {
				t.Errorf("width %d: a line of %d columns", tt.width, n)
			}
		}
	}
}
