package render

import (
	"fmt"

	"github.com/gputop-dev/gputop/timeline/report"
)

// The owners section (report.ReportOwner): each pod and Slurm job the
// GPUs were allocated to, its GPU time, how much of it worked, its energy
// and, with a price, its cost. Absent in a session without owners, so the
// report of any other session is as it was.

// ownerName is an owner as the tables name it: "pod team-a/train-0",
// "Slurm job 4242 (alice)".
func ownerName(o report.ReportOwner) string {
	if o.User != "" {
		return repClean(o.Owner + " (" + o.User + ")")
	}
	return repClean(o.Owner)
}

// ownerRow is an owner's figures after its name: GPUs, GPU-hours
// allocated, busy and idle, the idle share, energy, and the cost where a
// price was given.
func (r *doc) ownerRow(o report.ReportOwner) []string {
	idle := repNA
	if o.AllocatedGPUHours > 0 {
		idle = repShare(o.IdleGPUHours / o.AllocatedGPUHours)
	}
	row := []string{r.gpuNames().Of(o.GPUs), repNum(o.AllocatedGPUHours), repNum(o.BusyGPUHours), repNum(o.IdleGPUHours),
		idle, repEnergy(o.Energy)}
	if r.Work.Cost != nil {
		row = append(row, repNum(o.Cost))
	}
	return row
}

func (r *doc) textOwners(t repText) {
	if len(r.Owners) == 0 {
		return
	}
	t.line("")
	t.line("OWNERS (GPU-hours allocated to each pod or Slurm job, busy and idle)")
	// 80 columns: the name takes what the figures leave.
	const nameWidth = 22
	head := []string{"GPUS", "ALLOC", "BUSY", "IDLE", "IDLE%", "ENERGY"}
	if r.Work.Cost != nil {
		head = append(head, "COST")
	}
	widths := []int{8, 7, 7, 7, 6, 8, 7}
	line := func(name string, cells []string) {
		s := fmt.Sprintf("%-*s", nameWidth, Cut(name, nameWidth, "~"))
		for i, c := range cells {
			if i == 0 {
				s += fmt.Sprintf("  %-*s", widths[i], Cut(c, widths[i], "~"))
			} else {
				s += fmt.Sprintf(" %*s", widths[i], c)
			}
		}
		t.line(s)
	}
	line("OWNER", head)
	for _, o := range r.Owners {
		line(ownerName(o), r.ownerRow(o))
	}
}

// owners is the markdown and HTML reports' owners table; only the page
// says how to read it.
func (r *doc) owners(f form) {
	if len(r.Owners) == 0 {
		return
	}
	f.section("Owners")
	t := Table{Head: []string{"owner", "GPUs", "allocated GPU-h", "busy GPU-h", "idle GPU-h", "idle", "energy"},
		Num: []bool{false, false, true, true, true, true, true}, escFigures: true}
	if r.Work.Cost != nil {
		t.Head, t.Num = append(t.Head, "cost"), append(t.Num, true)
	}
	for _, o := range r.Owners {
		t.add(append([]string{ownerName(o)}, r.ownerRow(o)...)...)
	}
	f.table(t)
	if _, md := f.(mdForm); !md {
		f.legend(`GPU time allocated to each pod or Slurm job; busy at or above the report's idle threshold, idle below it. A GPU several hold at once is shared equally.`)
	}
	f.end()
}
