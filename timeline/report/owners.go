package report

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
)

// ReportOwner is one pod or Slurm job the session's GPUs were allocated
// to (docs/owners.md), over the report: its GPU time, how much of it the
// GPUs worked, their energy and what it cost. A GPU several hold at once
// (time-slicing) is shared equally among them.
type ReportOwner struct {
	// Owner names it: "pod team-a/train-0", "Slurm job 4242".
	Owner     string `json:"owner"`
	Scheduler string `json:"scheduler"` // kubernetes, slurm
	Namespace string `json:"namespace,omitempty"`
	Pod       string `json:"pod,omitempty"`
	Job       string `json:"job,omitempty"`
	User      string `json:"user,omitempty"`
	Partition string `json:"partition,omitempty"`
	// GPUs are those it held at any time of the report.
	GPUs []int `json:"gpus"`
	// AllocatedGPUHours is the time sampled while it held them; of it,
	// BusyGPUHours with utilisation at or above the report's idle_util,
	// IdleGPUHours below it (the rest, unknown, is neither).
	AllocatedGPUHours Number `json:"allocated_gpu_hours"`
	BusyGPUHours      Number `json:"busy_gpu_hours"`
	IdleGPUHours      Number `json:"idle_gpu_hours"`
	// Energy is its GPUs' power integrated while it held them, J.
	Energy Number `json:"energy_j"`
	// Cost is its GPU time and energy at the prices given
	// (--price-gpu-hour, --price-kwh); null without either.
	Cost Number `json:"cost"`
}

// owners fills r.Owners from the stretches the GPUs were allocated:
// nothing in a session without owners.
func (b *repBuilder) owners(spans []analysis.OwnerSpan) {
	if len(spans) == 0 || b.s.Len() == 0 {
		return
	}
	from, to := b.from.UnixNano(), b.to.UnixNano()
	byName := map[string]*ReportOwner{}
	add := func(o timeline.Owner, gpu int, share float64, allocated, busy, idle time.Duration, energy float64) {
		name := analysis.Holder(o)
		ro := byName[name]
		if ro == nil {
			ro = &ReportOwner{Owner: name, Scheduler: "slurm", Job: o.Job, User: o.User, Partition: o.Partition, GPUs: []int{},
				Energy: Number(math.NaN())}
			if o.Pod != "" {
				ro = &ReportOwner{Owner: name, Scheduler: "kubernetes", Namespace: o.Namespace, Pod: o.Pod, GPUs: []int{},
					Energy: Number(math.NaN())}
			}
			byName[name] = ro
		}
		if !slices.Contains(ro.GPUs, gpu) {
			ro.GPUs = append(ro.GPUs, gpu)
		}
		hours := func(d time.Duration) Number { return Number(d.Hours() * share) }
		ro.AllocatedGPUHours += hours(allocated)
		ro.BusyGPUHours += hours(busy)
		ro.IdleGPUHours += hours(idle)
		if !math.IsNaN(energy) {
			ro.Energy = Number(timeline.AddKnown(float64(ro.Energy), energy*share))
		}
	}
	for k := 0; k < len(spans); {
		gpu := spans[k].GPU
		dev := timeline.GPUDevice(gpu)
		util := b.load(0, timeline.GPUUtil, dev)
		power := b.load(2, timeline.GPUPower, dev)
		for ; k < len(spans) && spans[k].GPU == gpu; k++ {
			sp := spans[k]
			lo, hi := max(sp.From.UnixNano(), from), min(sp.To.UnixNano(), to)
			if hi <= lo {
				continue
			}
			first := lo == from
			allocated := b.sampled(time.Unix(0, lo), time.Unix(0, hi))
			// Busy and idle are the time inside the span, as allocated is: a
			// sample at the report's first instant stands for the time
			// before it. The energy is the report's own reading of the
			// span (as its phases'), so the owners' sum is the GPUs'.
			var busy, idle time.Duration
			ulo, uhi := util.span(lo, hi, false)
			for i := ulo; i < uhi; i++ {
				switch {
				case util.w[i] <= 0:
				case util.v[i] < b.opts.IdleUtil:
					idle += time.Duration(util.w[i])
				default:
					busy += time.Duration(util.w[i])
				}
			}
			plo, phi := power.span(lo, hi, first)
			energy := power.integralOf(plo, phi)
			holders := distinctHolders(sp.Owners)
			for _, o := range holders {
				add(o, gpu, 1/float64(len(holders)), allocated, busy, idle, energy)
			}
		}
	}
	for _, ro := range byName {
		slices.Sort(ro.GPUs)
		ro.Cost = b.cost(ro.Energy, ro.AllocatedGPUHours*3600)
		b.r.Owners = append(b.r.Owners, *ro)
	}
	// The most GPU time first: who holds the most is who to ask first.
	slices.SortFunc(b.r.Owners, func(x, y ReportOwner) int {
		return cmp.Or(cmp.Compare(y.AllocatedGPUHours, x.AllocatedGPUHours), cmp.Compare(x.Owner, y.Owner))
	})
}

// distinctHolders are the owners of a GPU with one entry a holder: a pod's
// containers are one.
func distinctHolders(owners []timeline.Owner) []timeline.Owner {
	var out []timeline.Owner
	for _, o := range owners {
		if analysis.Holder(o) != "" && !slices.ContainsFunc(out, func(p timeline.Owner) bool { return analysis.Holder(p) == analysis.Holder(o) }) {
			out = append(out, o)
		}
	}
	return out
}
