package diff

import (
	"math"
	"slices"

	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/report/render"
)

// Owner is one pod's or Slurm job's figures in both runs
// (report.ReportOwner): what it held and how much of it worked. A run
// whose GPUs were never allocated to it has 0 GPU-hours and energy there,
// and a cost of 0 where that run was priced.
type Owner struct {
	Owner string `json:"owner"`
	// Metrics are its allocated_gpu_hours, busy_gpu_hours,
	// idle_gpu_hours, energy and cost, as Diff.Metrics are.
	Metrics []Metric `json:"metrics"`
}

// The owners' metrics' names, in their order.
const (
	OwnerAllocated = "allocated_gpu_hours"
	OwnerBusy      = "busy_gpu_hours"
	OwnerIdle      = "idle_gpu_hours"
	OwnerEnergy    = "energy"
	OwnerCost      = "cost"
)

var ownerMetrics = []string{OwnerAllocated, OwnerBusy, OwnerIdle, OwnerEnergy, OwnerCost}

var ownerUnit = map[string]string{OwnerAllocated: "GPU-h", OwnerBusy: "GPU-h", OwnerIdle: "GPU-h", OwnerEnergy: "J"}

var ownerBetter = map[string]string{OwnerBusy: "up", OwnerIdle: "down", OwnerEnergy: "down", OwnerCost: "down"}

var ownerLabel = map[string]string{OwnerAllocated: "allocated GPU-h", OwnerBusy: "busy GPU-h", OwnerIdle: "idle GPU-h",
	OwnerEnergy: "energy", OwnerCost: "cost"}

// owners matches the runs' owners by name, in A's order, then those only
// in B; nil where neither run knows owners, so such a diff is as before.
func owners(a, b *report.Report) []Owner {
	var names []string
	for _, r := range []*report.Report{a, b} {
		for _, o := range r.Owners {
			if !slices.Contains(names, o.Owner) {
				names = append(names, o.Owner)
			}
		}
	}
	figures := func(r *report.Report, name string) map[string]float64 {
		for _, o := range r.Owners {
			if o.Owner == name {
				return map[string]float64{OwnerAllocated: float64(o.AllocatedGPUHours), OwnerBusy: float64(o.BusyGPUHours),
					OwnerIdle: float64(o.IdleGPUHours), OwnerEnergy: float64(o.Energy), OwnerCost: float64(o.Cost)}
			}
		}
		cost := math.NaN()
		if r.Work.Cost != nil {
			cost = 0
		}
		return map[string]float64{OwnerAllocated: 0, OwnerBusy: 0, OwnerIdle: 0, OwnerEnergy: 0, OwnerCost: cost}
	}
	var out []Owner
	for _, name := range names {
		fa, fb := figures(a, name), figures(b, name)
		o := Owner{Owner: name}
		for _, m := range ownerMetrics {
			o.Metrics = append(o.Metrics, metricOf(m, ownerUnit[m], ownerBetter[m], fa[m], fb[m]))
		}
		out = append(out, o)
	}
	return out
}

// metricOf is a metric of A and B: their change, and relative to A.
func metricOf(name, unit, better string, a, b float64) Metric {
	m := Metric{Name: name, Unit: unit, Better: better, A: report.Number(a), B: report.Number(b),
		Change: report.Number(b - a), Relative: report.Number(math.NaN())}
	if a != 0 && !math.IsNaN(a) && !math.IsNaN(b) {
		m.Relative = report.Number((b - a) / math.Abs(a))
	}
	return m
}

// ownerRows fills t with the owners' rows: a heading row of each owner's
// name, then its figures; a cost neither run knows is left out.
func (d *Diff) ownerRows(t render.Table) render.Table {
	for _, o := range d.Owners {
		t.Rows, t.Group = append(t.Rows, []string{o.Owner}), append(t.Group, true)
		for _, m := range o.Metrics {
			if m.Name == OwnerCost && m.A.Unknown() && m.B.Unknown() {
				continue
			}
			t.Rows = append(t.Rows, []string{ownerLabel[m.Name], formatValue(m.Unit, m.A), formatValue(m.Unit, m.B), formatChange(m)})
			t.Group = append(t.Group, false)
		}
	}
	return t
}
