package report

import (
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

// processes lists every process of the report's stretch.
func (b *repBuilder) processes() {
	for _, sp := range b.s.ProcessSpans(b.from, b.to) {
		p := ReportProcess{GPU: sp.GPU, PID: sp.PID, User: sp.User, Command: sp.Command,
			Start: b.rel(sp.Start()), FirstSeen: b.rel(sp.FirstSeen), LastSeen: b.rel(sp.LastSeen),
			Running: sp.Running, PeakGPUMem: Number(sp.PeakGPUMem), Workload: WorkloadOf(sp.Workload)}
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

// Workload is w back as the timeline has it; nil is none.
func (w *ReportWorkload) Workload() *timeline.Workload {
	if w == nil {
		return nil
	}
	return &timeline.Workload{Runtime: w.Runtime, Container: w.Container, Pod: w.Pod, QoS: w.QoS,
		Job: w.SlurmJob, Step: w.SlurmStep, Session: w.Session}
}
