package probes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gputop-dev/gputop/timeline"
)

func TestParseCgroup(t *testing.T) {
	type W = timeline.Workload
	tests := []struct {
		file string
		want W
	}{
		{"docker_v1.txt", W{Runtime: "docker", Container: "5dace3de0735"}},
		{"docker_v1_hybrid.txt", W{Runtime: "docker", Container: "2403ccfe427f"}},
		{"docker_v2_systemd.txt", W{Runtime: "docker", Container: "a2ffe0e97ac2"}},
		{"k8s_v2_systemd_containerd_burstable.txt", W{Runtime: "containerd", Container: "2032491dcae3",
			Pod: "55c6c714-b240-4dec-9a45-57b61696ab6e", QoS: "burstable"}},
		{"k8s_v2_systemd_static_pod.txt", W{Runtime: "containerd", Container: "2884d57c0e10",
			Pod: "8daa50c3a64c9ff60bb9eab7b44b56fd", QoS: "burstable"}},
		{"k8s_v2_systemd_guaranteed.txt", W{Runtime: "containerd", Container: "484b78324bb3",
			Pod: "adcfbb42-ec24-48ae-a259-f756c8d1f046", QoS: "guaranteed"}},
		{"k8s_v2_pod_slice_only.txt", W{Pod: "55c6c714-b240-4dec-9a45-57b61696ab6e", QoS: "burstable"}},
		{"k8s_v1_systemd_crio.txt", W{Runtime: "cri-o", Container: "5eed91756358",
			Pod: "a5c1f8d5-1919-434d-add7-4afaafdaef89", QoS: "burstable"}},
		{"k8s_v1_systemd_docker.txt", W{Runtime: "docker", Container: "d0b3604b67ac",
			Pod: "7d4424e6-bb13-42f4-a47a-45a4828bf54d", QoS: "burstable"}},
		{"k8s_v1_containerd_colon_besteffort.txt", W{Runtime: "containerd", Container: "ee4b20e90ac7",
			Pod: "0125ec2f-b64a-4868-8f5b-94b56cbab864", QoS: "besteffort"}},
		{"k8s_v1_cgroupfs_burstable.txt", W{Container: "abddff03dfd7",
			Pod: "9692aa0e-748e-11e8-8dfa-76d458035df6", QoS: "burstable"}},
		{"k8s_v2_cgroupfs_guaranteed.txt", W{Container: "f58c1c55e72c",
			Pod: "96993dbe-748e-11e8-8dfa-76d458035df6", QoS: "guaranteed"}},
		{"k8s_v2_cgroupfs_besteffort.txt", W{Container: "ee4b20e90ac7",
			Pod: "0125ec2f-b64a-4868-8f5b-94b56cbab864", QoS: "besteffort"}},
		{"slurm_v1.txt", W{Job: "123", Step: "0"}},
		{"slurm_v1_multiple_slurmd.txt", W{Job: "42", Step: "batch"}},
		{"slurm_v2_batch.txt", W{Job: "123", Step: "batch"}},
		{"slurm_v2_nodename.txt", W{Job: "4749", Step: "0"}},
		{"slurm_v2_extern.txt", W{Job: "77", Step: "extern"}},
		{"slurm_v2_stepd_itself.txt", W{}},
		{"slurmd_not_in_job_v1.txt", W{}},
		{"not_slurm_job.txt", W{}},
		{"session_v2.txt", W{Session: "3"}},
		{"session_v1_hybrid.txt", W{Session: "1"}},
		{"user_manager_v2.txt", W{}},
		{"podman_unshare_v2.txt", W{}},
		{"podman_rootless_v2.txt", W{Runtime: "podman", Container: "8b4f8e2a4f9a"}},
		{"podman_conmon_v2.txt", W{}},
		{"host_v1.txt", W{}},
		{"host_v2_init.txt", W{}},
		{"dockerd_itself.txt", W{}},
	}
	files, _ := filepath.Glob("testdata/cgroup/*.txt")
	if len(files) != len(tests) {
		t.Errorf("%d files in testdata/cgroup, %d in the table: every shape needs its expected answer", len(files), len(tests))
	}
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.file, ".txt"), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "cgroup", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if got := ParseCgroup(data); got != tt.want {
				t.Errorf("ParseCgroup = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestParseCgroupOddInput: what the kernel never writes but a torn read or
// a strange runtime might still says nothing rather than something wrong.
func TestParseCgroupOddInput(t *testing.T) {
	for _, in := range []string{
		"", "\n", "garbage", "0::", "0::/", ":::::",
		"0::/docker-xyz.scope",                           // not hex
		"0::/docker-abc.scope",                           // too short to be an id
		"0::/kubepods.slice/kubepods-podZZZ.slice",       // not a uid
		"0::/system.slice/slurmstepd.scope/job_x/step_0", // not a job number
		"0::/user.slice/user-1000.slice/session-.scope",
	} {
		w := ParseCgroup([]byte(in))
		if w.Container != "" || w.Pod != "" || w.Job != "" || w.Session != "" {
			t.Errorf("ParseCgroup(%q) = %+v, want nothing", in, w)
		}
	}
}

func FuzzParseCgroup(f *testing.F) {
	files, _ := filepath.Glob("testdata/cgroup/*.txt")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		w := ParseCgroup(data)
		if len(w.Container) != 0 && (len(w.Container) != shortIDLength || !isHex(w.Container)) {
			t.Errorf("container %q is not a 12-digit id", w.Container)
		}
		if w.Pod != "" && strings.Trim(w.Pod, "0123456789abcdefABCDEF-") != "" {
			t.Errorf("pod %q is not a uid", w.Pod)
		}
		switch w.QoS {
		case "", "guaranteed", "burstable", "besteffort":
		default:
			t.Errorf("QoS %q", w.QoS)
		}
		if w.Job != "" && !isDigits(w.Job) || w.Job == "" && w.Step != "" {
			t.Errorf("job %q step %q", w.Job, w.Step)
		}
		if w.Session != "" && !isAlnum(w.Session) {
			t.Errorf("session %q", w.Session)
		}
	})
}
