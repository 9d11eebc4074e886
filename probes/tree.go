package probes

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gputop-dev/gputop/timeline"
)

// TreeProbe reads the process tree of the job `gputop run` wraps: the CPU
// time and resident memory of the job's process and all its descendants,
// as device timeline.JobDevice. Each Collect walks /proc once.
//
// CPU time is a counter: each member's own time plus the time of the
// children it has reaped, so a DataLoader worker that exits does not make
// the total drop. RSS is summed over the members; like top's, the sum
// counts memory that processes share once per process.
//
// When the job's process is gone (or its pid now belongs to another
// process) the probe reports itself lost, and the Sampler stops asking.
//
// The probe exists before the job does, since the session that runs it
// opens first (so that markers and the recording's file are ready when
// the job starts); until Watch names the job, it reads nothing.
type TreeProbe struct {
	root    atomic.Int64
	scanner *procScanner
	members []procEntry

	rootStart uint64 // the root's start time, to notice its pid reused
	seenRoot  bool
	metrics   [2]timeline.Metric

	mu   sync.Mutex
	pids []int
}

// NewTreeProbe returns a probe of the process tree Watch will name. It
// returns the concrete type, which is a Probe, so that its caller can also
// call Watch and PIDs.
func NewTreeProbe() *TreeProbe {
	p := &TreeProbe{scanner: newProcScanner("/proc")}
	p.metrics[0] = timeline.Metric{Key: timeline.Key{Name: timeline.ProcCPUSecs, Device: timeline.JobDevice}, Kind: timeline.Counter}
	p.metrics[1] = timeline.Metric{Key: timeline.Key{Name: timeline.ProcRSS, Device: timeline.JobDevice}, Kind: timeline.Gauge}
	return p
}

// Name is "tree".
func (p *TreeProbe) Name() string { return "tree" }

// Device is timeline.JobDevice.
func (p *TreeProbe) Device() string { return timeline.JobDevice }

// PIDs returns the tree's process ids, root first, as of the last Collect
// (nil before the first and after the job is gone). Safe from any
// goroutine; the slice is the caller's.
func (p *TreeProbe) PIDs() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]int(nil), p.pids...)
}

// markJob marks the processes in the tree as the job's (Process.InJob).
func (p *TreeProbe) markJob(procs []timeline.Process) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range procs {
		procs[i].InJob = slices.Contains(p.pids, procs[i].PID)
	}
}

// Watch names the tree's root process. Call it once, before or after the
// sampler starts.
func (p *TreeProbe) Watch(pid int) { p.root.Store(int64(pid)) }

// Collect walks /proc once and sums the tree.
func (p *TreeProbe) Collect(context.Context) (Reading, error) {
	root := int(p.root.Load())
	if root == 0 {
		p.metrics[0].Value, p.metrics[1].Value = math.NaN(), math.NaN()
		return Reading{Metrics: p.metrics[:]}, nil // no job yet
	}
	entries, scanErr := p.scanner.scan()
	var found bool
	p.members, found = treeOf(root, entries, p.members)
	if found && p.seenRoot && p.members[0].startTime != p.rootStart {
		found = false // the job exited and its pid went to another process
	}
	if !found {
		p.setPIDs(nil)
		p.metrics[0].Value, p.metrics[1].Value = math.NaN(), math.NaN()
		if scanErr != nil {
			// Not seen because /proc could not be read: not proof it is gone.
			return Reading{Metrics: p.metrics[:]}, scanErr
		}
		return Reading{Metrics: p.metrics[:], Lost: true}, fmt.Errorf("process %d has exited", root)
	}
	if !p.seenRoot {
		p.rootStart, p.seenRoot = p.members[0].startTime, true
	}
	var ticks, pages uint64
	for _, m := range p.members {
		ticks += m.cpuTicks
		pages += m.rssPages
	}
	p.metrics[0].Value = ticksToSeconds(ticks)
	p.metrics[1].Value = float64(pages) * pageSize
	p.setPIDs(p.members)
	return Reading{Metrics: p.metrics[:]}, scanErr
}

func (p *TreeProbe) setPIDs(members []procEntry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pids = p.pids[:0]
	for _, m := range members {
		p.pids = append(p.pids, m.pid)
	}
}
