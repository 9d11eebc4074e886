package owners

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/probes/probe"
	"github.com/gputop-dev/gputop/timeline"
)

// Config says where the probe looks. Every path has a default; tests
// point them into a temporary directory.
type Config struct {
	// GPUs are the session's GPUs and MIG instances, which allocations are
	// matched to by UUID (Kubernetes) or NVML index (Slurm).
	GPUs []timeline.GPUInfo
	// KubeletSocket is the kubelet's pod-resources socket; default
	// DefaultKubeletSocket.
	KubeletSocket string
	// CgroupRoot is where the cgroup tree is mounted (default
	// /sys/fs/cgroup) and ProcRoot where /proc is (default /proc).
	CgroupRoot, ProcRoot string
	// JobMapDirs are the directories a Slurm prolog writes its per-GPU
	// job-mapping files to; default DefaultJobMapDirs.
	JobMapDirs []string
	// Now is the clock the minute between looks for a missing source is
	// measured on; default time.Now.
	Now func() time.Time
}

// DefaultKubeletSocket is where the kubelet serves its pod-resources API.
const DefaultKubeletSocket = "/var/lib/kubelet/pod-resources/kubelet.sock"

// DefaultJobMapDirs are where sites' prologs put the files DCGM's HPC job
// mapping reads (dcgm-exporter's --hpc-job-mapping-dir has no default;
// these are the paths its users' prologs write) and Princeton's jobstats
// helper's.
var DefaultJobMapDirs = []string{"/run/dcgm-job-map", "/var/run/dcgm-job-map", "/run/gpustat"}

// recheck is how long a source found missing is left alone: the cost of
// gputop on a node without it is one look a minute.
const recheck = time.Minute

// maxOwnersPerGPU bounds what one answer may make, whatever a hostile
// server or a directory of a million files says: 64 owners a GPU
// (time-slicing replicas) is far beyond any real node.
const maxOwnersPerGPU = 64

// Probe is the ownership probe: run on the sampler's slow tier, its
// Reading.Owners are the GPUs' allocations. It is not safe for concurrent
// Collects, which the Sampler never makes.
type Probe struct {
	gpus   []timeline.GPUInfo
	now    func() time.Time
	kube   *kubelet
	slurm  *slurm
	checks []string
}

var _ probe.Probe = (*Probe)(nil)

// New returns the probe of cfg, having looked once for each source: what
// it found is Checks.
func New(cfg Config) *Probe {
	if cfg.KubeletSocket == "" {
		cfg.KubeletSocket = DefaultKubeletSocket
	}
	if cfg.CgroupRoot == "" {
		cfg.CgroupRoot = "/sys/fs/cgroup"
	}
	if cfg.ProcRoot == "" {
		cfg.ProcRoot = "/proc"
	}
	if cfg.JobMapDirs == nil {
		cfg.JobMapDirs = DefaultJobMapDirs
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	p := &Probe{
		gpus:  cfg.GPUs,
		now:   cfg.Now,
		kube:  &kubelet{socket: cfg.KubeletSocket},
		slurm: &slurm{cgroupRoot: cfg.CgroupRoot, procRoot: cfg.ProcRoot, mapDirs: cfg.JobMapDirs},
	}
	now := p.now()
	p.kube.look(now)
	p.slurm.look(now)
	p.checks = []string{p.kube.check(), p.slurm.check()}
	return p
}

// Name is the probe's name in statuses.
func (p *Probe) Name() string { return "owners" }

// Device is "": the probe reads every GPU at once.
func (p *Probe) Device() string { return "" }

// Checks are what New found, a line a source, for the help screen:
// "kubelet pod-resources: /var/lib/...: not found; looked for again every
// minute".
func (p *Probe) Checks() []string { return p.checks }

// Close lets the kubelet's connection go.
func (p *Probe) Close() error { return p.kube.close() }

// Collect reads every source that is there. A source that is missing or
// refuses is no error (most nodes have neither Kubernetes nor Slurm);
// one that answers badly is.
func (p *Probe) Collect(ctx context.Context) (probe.Reading, error) {
	now := p.now()
	var owners []timeline.Owner
	var errs []error
	if p.kube.due(now) {
		got, err := p.kube.list(ctx, now, p.gpus)
		owners = append(owners, got...)
		errs = append(errs, err)
	}
	if p.slurm.due(now) {
		got, err := p.slurm.read(now, p.gpus)
		owners = append(owners, got...)
		errs = append(errs, err)
	}
	return probe.Reading{Owners: bound(owners, len(p.gpus))}, errors.Join(errs...)
}

// bound keeps at most maxOwnersPerGPU owners a GPU.
func bound(owners []timeline.Owner, gpus int) []timeline.Owner {
	if len(owners) <= maxOwnersPerGPU*max(gpus, 1) {
		return owners
	}
	return owners[:maxOwnersPerGPU*max(gpus, 1)]
}

// source is what the two sources share: whether the source was there at
// the last look, and when to look again if not.
type source struct {
	present bool
	next    time.Time // when to look again, while not present
	why     string    // why not, for the check line
}

// due says whether to read the source now; a missing one is read again
// once a minute has passed since it was found missing.
func (s *source) due(now time.Time) bool { return s.present || !now.Before(s.next) }

// gone marks the source missing, looked for again a minute from now.
func (s *source) gone(now time.Time, why string) {
	s.present, s.next, s.why = false, now.Add(recheck), why
}

// byUUID finds the GPU or MIG instance with uuid.
func byUUID(gpus []timeline.GPUInfo, uuid string) (timeline.GPUInfo, bool) {
	for _, g := range gpus {
		if g.UUID != "" && strings.EqualFold(g.UUID, uuid) {
			return g, true
		}
	}
	return timeline.GPUInfo{}, false
}

// byIndex finds the physical GPU with NVML index i (on this host).
func byIndex(gpus []timeline.GPUInfo, i int) (timeline.GPUInfo, bool) {
	for _, g := range gpus {
		if !g.IsMIGInstance() && g.OnHost() == i {
			return g, true
		}
	}
	return timeline.GPUInfo{}, false
}

// byMIG finds the MIG instance of the GPU with parentUUID whose GPU and
// compute instance ids are gi and ci.
func byMIG(gpus []timeline.GPUInfo, parentUUID string, gi, ci int) (timeline.GPUInfo, bool) {
	parent, ok := byUUID(gpus, parentUUID)
	if !ok {
		return timeline.GPUInfo{}, false
	}
	for _, g := range gpus {
		if g.IsMIGInstance() && g.MIGParent == parent.Index && g.MIGGPUInstance == gi && g.MIGComputeInstance == ci {
			return g, true
		}
	}
	return timeline.GPUInfo{}, false
}

// maxName is the longest name kept: a Kubernetes name is at most 253
// characters (a DNS subdomain), a Slurm one far less.
const maxName = 253

// clean makes a name from outside safe to print, on one line, bounded.
func clean(s string) string {
	if len(s) > maxName {
		s = s[:maxName] // a rune cut in two becomes U+FFFD below
	}
	return strings.TrimSpace(timeline.CleanText(s))
}

// atoi reads a small non-negative decimal number; false for anything else.
func atoi(s string) (int, bool) {
	if s == "" || len(s) > 6 {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0 && s[0] != '+'
}
