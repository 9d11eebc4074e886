package owners

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// slurm reads what Slurm leaves on a node about its jobs:
//
//   - its cgroup tree: slurmd puts every job in a cgroup of its own,
//     system.slice/slurmstepd.scope/job_<id>/ under cgroup v2 and
//     <controller>/slurm/uid_<uid>/job_<id>/ under v1 (slurm_<node> and
//     <node>_slurmstepd.scope where several slurmd share a machine);
//   - the job's environment, read from a process in that cgroup
//     (/proc/<pid>/environ): SLURM_JOB_GPUS, the NVML indexes of its GPUs
//     as the node's gres.conf numbers them, SLURM_JOB_USER and
//     SLURM_JOB_PARTITION. Reading another user's environment needs root,
//     as gputop serve on a cluster node runs;
//   - the per-GPU job-mapping files a prolog writes for DCGM's HPC job
//     mapping: a directory of files named by GPU index (or by a GPU's or
//     MIG device's UUID, as jobstats' helper does), each holding the ids
//     of the jobs on that GPU, one a line, a uid after the id where the
//     helper writes one. They need no root, and name a GPU whose job's
//     environment could not be read.
type slurm struct {
	source
	cgroupRoot, procRoot string
	mapDirs              []string
	users                map[string]string // uid to name, as looked up
}

// Bounds on what a node's files may make gputop read, whatever is there.
const (
	maxJobs      = 1024    // job cgroups looked at
	maxMapFiles  = 1024    // files in a job-mapping directory
	maxMapFile   = 4 << 10 // bytes of one mapping file
	maxProcsFile = 64 << 10
	maxEnviron   = 1 << 20 // bytes of one process's environment
	maxTries     = 8       // processes of a job whose environment is read
	maxWalkDepth = 4       // job_<id>/step_<s>/user/task_<n>
)

// jobGlobs are where slurmd puts job cgroups under cgroup v2 and v1.
var jobGlobs = []string{
	"system.slice/slurmstepd.scope/job_*",
	"system.slice/*_slurmstepd.scope/job_*",
	"*/slurm/uid_*/job_*",
	"*/slurm_*/uid_*/job_*",
}

// baseGlobs are the cgroups slurmd makes when it starts, before any job:
// their presence says this is a Slurm node, so a job that starts is seen
// on the next read, not a minute later.
var baseGlobs = []string{"system.slice/slurmstepd.scope", "system.slice/*_slurmstepd.scope", "*/slurm", "*/slurm_*"}

// look says whether the node shows any sign of Slurm.
func (s *slurm) look(now time.Time) bool {
	for _, g := range baseGlobs {
		if m, _ := filepath.Glob(filepath.Join(s.cgroupRoot, g)); len(m) > 0 {
			s.present = true
			return true
		}
	}
	for _, d := range s.mapDirs {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			s.present = true
			return true
		}
	}
	s.gone(now, "no slurmstepd cgroups under "+s.cgroupRoot+" and no job-mapping directory")
	return false
}

// check is the source's line in Checks.
func (s *slurm) check() string {
	if s.present {
		return "slurm: job cgroups or job-mapping files found"
	}
	return "slurm: " + s.why + "; looked for again every minute"
}

// slurmJob is what the node says of one job.
type slurmJob struct {
	id, user, partition string
	gpus                []int // NVML indexes, from its environment
}

// read finds each GPU's jobs. It marks the source missing when the signs
// of Slurm went away, and says nothing is wrong when a file vanished
// under it: jobs end while they are read.
func (s *slurm) read(now time.Time, gpus []timeline.GPUInfo) ([]timeline.Owner, error) {
	if !s.look(now) {
		return nil, nil
	}
	jobs := s.jobs()
	var out []timeline.Owner
	seen := map[timeline.Owner]bool{}
	add := func(o timeline.Owner) {
		if !seen[o] && len(out) < maxOwnersPerGPU*max(len(gpus), 1) {
			seen[o] = true
			out = append(out, o)
		}
	}
	for _, j := range jobs {
		for _, i := range j.gpus {
			if g, ok := byIndex(gpus, i); ok {
				add(timeline.Owner{GPU: g.Index, Job: j.id, User: j.user, Partition: j.partition})
			}
		}
	}
	for _, m := range s.mapped(gpus) {
		o := m
		if j, ok := jobs[m.Job]; ok {
			o.User, o.Partition = j.user, j.partition
		}
		if o.User == "" {
			o.User = m.User // the helper's uid, as a name where one is known
		}
		add(o) // once: a GPU the environment named for this job already is
	}
	return out, nil
}

// jobs reads every job cgroup: its id, the user its path or environment
// names, and its GPUs and partition from its environment.
func (s *slurm) jobs() map[string]slurmJob {
	out := map[string]slurmJob{}
	for _, g := range jobGlobs {
		dirs, _ := filepath.Glob(filepath.Join(s.cgroupRoot, g))
		for _, dir := range dirs {
			id := strings.TrimPrefix(filepath.Base(dir), "job_")
			if !isJobID(id) || len(out) >= maxJobs {
				continue
			}
			if j, ok := out[id]; ok && j.gpus != nil {
				continue // the same job under another v1 controller
			}
			j := slurmJob{id: id}
			if uid, ok := strings.CutPrefix(filepath.Base(filepath.Dir(dir)), "uid_"); ok {
				j.user = s.userName(uid)
			}
			s.environ(dir, &j)
			if old, ok := out[id]; ok && j.user == "" {
				j.user = old.user
			}
			out[id] = j
		}
	}
	return out
}

// environ fills j from the environment of the first of the job's processes
// that has one naming the job.
func (s *slurm) environ(dir string, j *slurmJob) {
	tries := 0
	for _, pid := range s.pids(dir) {
		if tries >= maxTries {
			return
		}
		tries++
		env := readEnviron(filepath.Join(s.procRoot, pid, "environ"))
		if env["SLURM_JOB_ID"] != j.id {
			continue
		}
		if u := env["SLURM_JOB_USER"]; u != "" {
			j.user = clean(u)
		}
		j.partition = clean(env["SLURM_JOB_PARTITION"])
		list := env["SLURM_JOB_GPUS"]
		if list == "" {
			list = env["SLURM_STEP_GPUS"]
		}
		j.gpus = []int{}
		for f := range strings.SplitSeq(list, ",") {
			if i, ok := atoi(strings.TrimSpace(f)); ok && !slices.Contains(j.gpus, i) && len(j.gpus) < 64 {
				j.gpus = append(j.gpus, i)
			}
		}
		return
	}
}

// pids lists the processes of a job's cgroup and its steps', the job's
// own tasks first: under v2 each step's "slurm" child holds slurmstepd,
// whose environment is slurmd's, not the job's, so it is passed over.
func (s *slurm) pids(dir string) []string {
	var out []string
	var walk func(d string, depth int)
	walk = func(d string, depth int) {
		if len(out) >= maxTries || depth > maxWalkDepth {
			return
		}
		out = append(out, readPIDs(filepath.Join(d, "cgroup.procs"), maxTries-len(out))...)
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if e.IsDir() && e.Name() != "slurm" {
				walk(filepath.Join(d, e.Name()), depth+1)
			}
		}
	}
	walk(dir, 0)
	return out
}

// readPIDs reads up to n process ids from a cgroup.procs file.
func readPIDs(path string, n int) []string {
	data := readBounded(path, maxProcsFile)
	var out []string
	for line := range bytes.Lines(data) {
		pid := string(bytes.TrimSpace(line))
		if _, ok := atoi(pid); ok && pid != "0" {
			out = append(out, pid)
			if len(out) >= n {
				break
			}
		}
	}
	return out
}

// readEnviron reads the SLURM_ variables of a /proc/<pid>/environ.
func readEnviron(path string) map[string]string {
	data := readBounded(path, maxEnviron)
	env := map[string]string{}
	for kv := range bytes.SplitSeq(data, []byte{0}) {
		if !bytes.HasPrefix(kv, []byte("SLURM_")) {
			continue
		}
		if k, v, ok := bytes.Cut(kv, []byte("=")); ok {
			env[string(k)] = string(v)
		}
	}
	return env
}

// mapped reads the job-mapping directories: an owner for each job id in
// each file named by a GPU of the session.
func (s *slurm) mapped(gpus []timeline.GPUInfo) []timeline.Owner {
	var out []timeline.Owner
	for _, dir := range s.mapDirs {
		f, err := os.Open(dir)
		if err != nil {
			continue
		}
		names, _ := f.Readdirnames(maxMapFiles)
		f.Close()
		slices.Sort(names)
		for _, name := range names {
			var g timeline.GPUInfo
			var ok bool
			if i, isIndex := atoi(name); isIndex {
				g, ok = byIndex(gpus, i)
			} else {
				g, ok = byUUID(gpus, name)
			}
			if !ok {
				continue
			}
			data := readBounded(filepath.Join(dir, name), maxMapFile)
			if len(data) == maxMapFile {
				// Cut at the bound: its last line may be part of an id.
				data = data[:bytes.LastIndexByte(data, '\n')+1]
			}
			sc := bufio.NewScanner(bytes.NewReader(data))
			for sc.Scan() {
				fields := strings.Fields(sc.Text())
				if len(fields) == 0 || !isJobID(fields[0]) {
					continue
				}
				o := timeline.Owner{GPU: g.Index, Job: fields[0]}
				if len(fields) > 1 {
					if _, isUID := atoi(fields[1]); isUID {
						o.User = s.userName(fields[1])
					}
				}
				out = append(out, o)
			}
		}
	}
	return out
}

// readBounded reads at most n bytes of a file; nothing if it cannot.
func readBounded(path string, n int64) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, n))
	if err != nil && !errors.Is(err, io.EOF) {
		return nil
	}
	return data
}

// isJobID says whether s is a Slurm job id: digits, or an array task's
// "<job>_<task>", or a heterogeneous job's "<job>+<offset>".
func isJobID(s string) bool {
	if s == "" || len(s) > 32 || s[0] < '0' || s[0] > '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c == '_' || c == '+') {
			return false
		}
	}
	return true
}

// userName is the name of the user with uid, or "uid <uid>" where the
// machine has none. Names are kept: a lookup may ask LDAP, and the same
// few users come back every read.
func (s *slurm) userName(uid string) string {
	if _, ok := atoi(uid); !ok {
		return ""
	}
	if name, ok := s.users[uid]; ok {
		return name
	}
	name := "uid " + uid
	if u, err := user.LookupId(uid); err == nil && u.Username != "" {
		name = clean(u.Username)
	}
	if s.users == nil || len(s.users) >= maxJobs {
		s.users = map[string]string{}
	}
	s.users[uid] = name
	return name
}
