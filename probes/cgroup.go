package probes

import (
	"bytes"
	"strings"

	"github.com/gputop-dev/gputop/timeline"
)

// ParseCgroup reads /proc/PID/cgroup and says what the process belongs to:
// a container (Docker, containerd, CRI-O, Podman), a Kubernetes pod and its
// QoS class, a Slurm job and step, or a systemd login session.
//
// The file has one "hierarchy:controllers:path" line per hierarchy: many
// under cgroup v1, one "0::/path" under v2, both in the hybrid layout. The
// lines of one process may disagree (a v1 "name=systemd" line at "/" while
// the memory line names the container; a hybrid v2 line at
// "/system.slice/containerd.service"), so each path is read and the one
// that says most wins. Paths seen in the wild are in
// testdata/cgroup/README.md, with where each comes from.
func ParseCgroup(data []byte) timeline.Workload {
	var best timeline.Workload
	bestScore := 0
	for line := range bytes.Lines(data) {
		// The path is everything after the second colon: it may hold
		// colons itself (containerd's "pod.slice:cri-containerd:id").
		_, rest, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		_, path, ok := bytes.Cut(rest, []byte(":"))
		if !ok {
			continue
		}
		w := parseCgroupPath(string(bytes.TrimRight(path, "\r\n")))
		if s := workloadScore(w); s > bestScore {
			best, bestScore = w, s
		}
	}
	return best
}

// workloadScore ranks what a path said: a pod with its container over a
// bare container, a container over a Slurm job, a job over a session.
func workloadScore(w timeline.Workload) int {
	s := 0
	if w.Pod != "" {
		s += 8
	}
	if w.Container != "" {
		s += 4
	}
	if w.QoS != "" {
		s++
	}
	if w.Job != "" {
		s += 2
		if w.Step != "" {
			s++
		}
	}
	if w.Session != "" {
		s++
	}
	return s
}

// containerPrefixes are the systemd scope names runtimes give a container
// ("docker-<id>.scope") and the runtime each means. The conmon scopes of
// CRI-O and Podman hold the monitor, not the container, so they say nothing.
var containerPrefixes = []struct{ prefix, runtime string }{
	{"crio-conmon-", ""},
	{"libpod-conmon-", ""},
	{"docker-", "docker"},
	{"cri-containerd-", "containerd"},
	{"crio-", "cri-o"},
	{"libpod-", "podman"},
}

// shortIDLength is how much of a container id docker ps and crictl show.
const shortIDLength = 12

// parseCgroupPath reads one cgroup path, component by component.
func parseCgroupPath(path string) timeline.Workload {
	var w timeline.Workload
	kube, slurm := false, false
	prev := ""
	for comp := range strings.SplitSeq(path, "/") {
		// containerd under a systemd-driver kubelet on cgroup v1 writes
		// "kubepods-…-pod<uid>.slice:cri-containerd:<id>" as one component.
		for part := range strings.SplitSeq(comp, ":") {
			if part == "" {
				continue
			}
			switch {
			case strings.HasPrefix(part, "kubepods"):
				kube = true
				kubeSlice(part, &w)
			case kube && (part == "burstable" || part == "besteffort"):
				w.QoS = part // cgroupfs driver: /kubepods/burstable/pod<uid>/<id>
			case kube && strings.HasPrefix(part, "pod") && w.Pod == "":
				w.Pod = podUID(part[len("pod"):])
			case strings.HasPrefix(part, "slurm"):
				slurm = true // slurm, slurm_<node>, slurmstepd.scope, <node>_slurmstepd.scope
			case strings.Contains(part, "_slurmstepd"):
				slurm = true
			case slurm && strings.HasPrefix(part, "job_") && w.Job == "":
				if id := part[len("job_"):]; isDigits(id) {
					w.Job = id
				}
			case slurm && w.Job != "" && strings.HasPrefix(part, "step_") && w.Step == "":
				w.Step = slurmStep(part[len("step_"):])
			case strings.HasPrefix(part, "session-") && strings.HasSuffix(part, ".scope"):
				if n := strings.TrimSuffix(part[len("session-"):], ".scope"); n != "" && isAlnum(n) {
					w.Session = n
				}
			default:
				if rt, id, ok := containerScope(part, prev); ok {
					w.Runtime, w.Container = rt, id
				}
			}
			prev = part
		}
	}
	if w.Pod != "" && w.QoS == "" {
		// Guaranteed pods sit directly under kubepods, without a class.
		w.QoS = "guaranteed"
	}
	if !kube {
		w.QoS = ""
	}
	return w
}

// kubeSlice reads the systemd driver's slices: kubepods.slice,
// kubepods-burstable.slice, kubepods-burstable-pod<uid>.slice (the uid's
// dashes written as underscores), kubepods-pod<uid>.slice (guaranteed).
func kubeSlice(part string, w *timeline.Workload) {
	name := strings.TrimSuffix(part, ".slice")
	for _, class := range []string{"burstable", "besteffort"} {
		if strings.HasPrefix(name, "kubepods-"+class) {
			w.QoS = class
		}
	}
	if _, uid, ok := strings.Cut(name, "-pod"); ok && uid != "" {
		w.Pod = podUID(uid)
	}
}

// podUID writes a pod UID with dashes; the systemd driver escapes them as
// underscores. Static pods have a bare 32-digit hash as UID.
func podUID(s string) string {
	s = strings.TrimSuffix(s, ".slice")
	s = strings.ReplaceAll(s, "_", "-")
	for _, r := range s {
		if !(r == '-' || isHexRune(r)) {
			return ""
		}
	}
	return s
}

// containerScope reads a component that names a container: a runtime's
// scope ("docker-<id>.scope") or, in the cgroupfs layout, a bare 64-digit
// id under /docker or a pod.
func containerScope(part, prev string) (runtime, id string, ok bool) {
	for _, c := range containerPrefixes {
		rest, found := strings.CutPrefix(part, c.prefix)
		if !found {
			continue
		}
		rest = strings.TrimSuffix(rest, ".scope")
		if c.runtime == "" || len(rest) < shortIDLength || !isHex(rest) {
			return "", "", false
		}
		return c.runtime, rest[:shortIDLength], true
	}
	if len(part) == 64 && isHex(part) {
		switch prev {
		case "docker":
			return "docker", part[:shortIDLength], true
		case "cri-containerd":
			return "containerd", part[:shortIDLength], true
		}
		return "", part[:shortIDLength], true
	}
	return "", "", false
}

// slurmStep keeps a step's name: a number, or batch, extern, interactive.
func slurmStep(s string) string {
	if isDigits(s) || s == "batch" || s == "extern" || s == "interactive" {
		return s
	}
	return ""
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isAlnum(s string) bool {
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

func isHex(s string) bool {
	for _, r := range s {
		if !isHexRune(r) {
			return false
		}
	}
	return s != ""
}

func isHexRune(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F'
}
