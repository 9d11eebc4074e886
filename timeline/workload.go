package timeline

import "strings"

// Workload is what a process's cgroup says it belongs to: a container, a
// Kubernetes pod, a Slurm job, a login session. NVML names processes by
// host PID; this is what a person asks next ("which pod holds GPU 3?").
// Every field is "" when unknown.
type Workload struct {
	// Runtime is the container runtime the cgroup names: "docker",
	// "containerd", "cri-o", "podman"; "" when the id comes from a bare
	// path (a cgroupfs kubelet) that does not say.
	Runtime string
	// Container is the container's id cut to 12 hex digits, as docker ps
	// and crictl ps show it.
	Container string
	// Pod is the Kubernetes pod UID, with dashes.
	Pod string
	// QoS is the pod's QoS class: "guaranteed", "burstable", "besteffort".
	QoS string
	// Job is the Slurm job id, Step its step ("0", "batch", "extern").
	Job, Step string
	// Session is the systemd login session ("3" for session-3.scope).
	Session string
}

// IsZero says the cgroup named nothing gputop knows (or was not read: nil).
func (w *Workload) IsZero() bool { return w == nil || *w == Workload{} }

// Short is the workload in a dozen or so characters, for a table column:
// the pod (its UID's first group), else the container, else the Slurm job,
// else the session; "" when none.
func (w *Workload) Short() string {
	if w == nil {
		return ""
	}
	switch {
	case w.Pod != "":
		uid, _, _ := strings.Cut(w.Pod, "-")
		return "pod " + uid[:min(len(uid), 8)]
	case w.Container != "":
		return "ctr " + w.Container
	case w.Job != "":
		if w.Step != "" {
			return "job " + w.Job + "." + w.Step
		}
		return "job " + w.Job
	case w.Session != "":
		return "session " + w.Session
	}
	return ""
}

// String is the whole workload in words, for a detail line and the report:
// "pod 55c6c714-b240-4dec-9a45-57b61696ab6e (burstable), containerd
// 2032491dcae3"; "" when none.
func (w *Workload) String() string {
	if w == nil {
		return ""
	}
	var parts []string
	if w.Pod != "" {
		p := "pod " + w.Pod
		if w.QoS != "" {
			p += " (" + w.QoS + ")"
		}
		parts = append(parts, p)
	}
	if w.Container != "" {
		rt := w.Runtime
		if rt == "" {
			rt = "container"
		}
		parts = append(parts, rt+" "+w.Container)
	}
	if w.Job != "" {
		j := "Slurm job " + w.Job
		if w.Step != "" {
			j += " step " + w.Step
		}
		parts = append(parts, j)
	}
	if w.Session != "" {
		parts = append(parts, "session "+w.Session)
	}
	return strings.Join(parts, ", ")
}
