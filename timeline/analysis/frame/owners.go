package frame

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// OwnerTrack is who each GPU was allocated to (a pod, a Slurm job), as the
// samples said it on the process tier's ticks, and how many processes were
// on it then: for each GPU, the times either changed and what held from
// each on. Both change seldom, so a sample that repeats the last answer
// costs one comparison, and a session without owners costs nothing.
type OwnerTrack struct {
	last []timeline.Owner // the last answer, to compare the next with
	gpus map[int]*ownerSteps
	// bytes is about what the steps hold (stepBytes), held under
	// maxOwnerBytes; over says a session named more than that at once and
	// its owners are no longer kept.
	bytes int
	over  bool
}

// OwnerStep is what held on a GPU from At on: its owners (nil: none) and
// the processes on it (-1: not read yet).
type OwnerStep struct {
	At     time.Time
	Owners []timeline.Owner
	Procs  int
}

type ownerSteps struct{ steps []OwnerStep }

// maxOwnerBytes bounds what the steps hold, whatever a file says (owners
// changing every tick for weeks, 16,384 GPUs of 64 owners with names of
// 253 bytes): a node of 8 GPUs whose owners change every 5 s takes a day
// to fill it. Past it the older half of each GPU's steps goes; a session
// whose latest steps alone fill it is no session gputop reads.
const maxOwnerBytes = 16 << 20

// maxOwnersPerGPU bounds a GPU's owners at once: probes/owners keeps 64.
const maxOwnersPerGPU = 64

// stepBytes is about what a step holds: itself, its owners, their names.
func stepBytes(st *OwnerStep) int {
	n := 64
	for _, o := range st.Owners {
		n += 112 + len(o.Pod) + len(o.Namespace) + len(o.Container) + len(o.Job) + len(o.User) + len(o.Partition)
	}
	return n
}

// Add takes a sample's owners and processes, where it has them.
func (o *OwnerTrack) Add(s *timeline.Sample) {
	if o.over {
		return
	}
	if s.Owners != nil && !slices.Equal(s.Owners, o.last) {
		o.setOwners(s.At, s.Owners)
	}
	if s.Processes != nil && len(o.gpus) > 0 {
		o.setProcs(s.At, s.Processes)
	}
	if o.bytes > maxOwnerBytes {
		o.thin()
	}
}

// thin lets the older half of each GPU's steps go, or, where the latest
// alone are past the bound, every owner.
func (o *OwnerTrack) thin() {
	o.bytes = 0
	for _, s := range o.gpus {
		s.steps = append(s.steps[:0], s.steps[len(s.steps)/2:]...)
		for i := range s.steps {
			o.bytes += stepBytes(&s.steps[i])
		}
	}
	if o.bytes > maxOwnerBytes {
		*o = OwnerTrack{over: true}
	}
}

func (o *OwnerTrack) setOwners(at time.Time, owners []timeline.Owner) {
	o.last = slices.Clone(owners)
	by := map[int][]timeline.Owner{}
	for _, w := range owners {
		if w.GPU >= 0 && w.GPU < timeline.MaxGPUs && len(by[w.GPU]) < maxOwnersPerGPU {
			by[w.GPU] = append(by[w.GPU], w)
		}
	}
	if o.gpus == nil {
		o.gpus = map[int]*ownerSteps{}
	}
	for gpu := range by {
		if o.gpus[gpu] == nil {
			o.gpus[gpu] = &ownerSteps{}
		}
	}
	// A GPU the answer does not name has no owners from now on (ws nil;
	// the owners of one it names are never empty).
	for gpu, steps := range o.gpus {
		ws := by[gpu]
		o.bytes += steps.set(at, func(st *OwnerStep) bool {
			if slices.Equal(st.Owners, ws) {
				return false
			}
			st.Owners = ws
			return true
		})
	}
}

// setProcs counts the processes on each GPU that has ever had an owner.
func (o *OwnerTrack) setProcs(at time.Time, procs []timeline.Process) {
	n := make(map[int]int, len(o.gpus))
	for _, p := range procs {
		if _, ok := o.gpus[p.GPU]; ok {
			n[p.GPU]++
		}
	}
	for gpu, steps := range o.gpus {
		o.bytes += steps.set(at, func(st *OwnerStep) bool {
			if st.Procs == n[gpu] {
				return false
			}
			st.Procs = n[gpu]
			return true
		})
	}
}

// set makes a step at at from the last one, changed by change; kept only
// where change says it changed something. It returns the bytes it added.
func (s *ownerSteps) set(at time.Time, change func(st *OwnerStep) bool) int {
	st := OwnerStep{At: at, Procs: -1}
	if n := len(s.steps); n > 0 {
		st = s.steps[n-1]
		st.At = at
	}
	if !change(&st) {
		return 0
	}
	if n := len(s.steps); n > 0 && s.steps[n-1].At.Equal(at) {
		before := stepBytes(&s.steps[n-1])
		s.steps[n-1] = st // owners and processes of one sample: one step
		return stepBytes(&st) - before
	}
	s.steps = append(s.steps, st)
	return stepBytes(&st)
}

// HasOwners says whether any sample so far named an owner.
func (f *Frame) HasOwners() bool { return f.Kept != nil && len(f.Kept.Owners.gpus) > 0 }

// OwnersAt is what held on GPU gpu as known by the end of column i: its
// owners, nil if none, and the processes on it, -1 if not read.
func (f *Frame) OwnersAt(gpu, i int) OwnerStep {
	if f.Kept == nil {
		return OwnerStep{Procs: -1}
	}
	return f.Kept.Owners.At(gpu, f.Time(i+1))
}

// At is what held on GPU gpu just before t: the last step before it.
func (o *OwnerTrack) At(gpu int, t time.Time) OwnerStep {
	s := o.gpus[gpu]
	if s == nil {
		return OwnerStep{Procs: -1}
	}
	k := sort.Search(len(s.steps), func(k int) bool { return !s.steps[k].At.Before(t) })
	if k == 0 {
		return OwnerStep{Procs: -1}
	}
	return s.steps[k-1]
}

// Steps are GPU gpu's steps, oldest first: what a report sums by owner.
// The caller must not change them.
func (o *OwnerTrack) Steps(gpu int) []OwnerStep {
	if s := o.gpus[gpu]; s != nil {
		return s.steps
	}
	return nil
}

// GPUs are the GPUs that have had an owner, in order.
func (o *OwnerTrack) GPUs() []int { return slices.Sorted(maps.Keys(o.gpus)) }

// Holder names who an owner is, as the hints and the report group GPUs by
// it: "pod team-a/train-0" (a pod's containers are one holder), "Slurm job
// 4242"; "" for an owner that names neither.
func Holder(o timeline.Owner) string {
	switch {
	case o.Pod != "" && o.Namespace != "":
		return timeline.CleanText("pod " + o.Namespace + "/" + o.Pod)
	case o.Pod != "":
		return timeline.CleanText("pod " + o.Pod)
	case o.Job != "":
		return timeline.CleanText("Slurm job " + o.Job)
	}
	return ""
}

// HolderDetail is the rest of what is known of the holder, in brackets:
// " (trainer)" for a pod's container, " (alice, gpu)" for a job's user and
// partition; "" where nothing is.
func HolderDetail(o timeline.Owner) string {
	more := []string{o.User, o.Partition}
	if o.Pod != "" {
		more = []string{o.Container}
	}
	more = slices.DeleteFunc(more, func(s string) bool { return s == "" })
	if len(more) == 0 {
		return ""
	}
	return timeline.CleanText(" (" + strings.Join(more, ", ") + ")")
}
