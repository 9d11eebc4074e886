package ui

import (
	"fmt"
	"math"
	"sort"

	"github.com/gputop-dev/gputop/timeline"
)

// viewProcs is the table of GPU processes at the cursor (from the slower
// sampling tier), busiest GPU memory first, like nvitop's.
func (m *Model) viewProcs(f *frame, rows int) []string {
	if rows <= 0 {
		return nil
	}
	procs, at := m.store.ProcessesAt(f.at)
	head := newLine(m.width)
	head.add(" PROCESSES", m.theme.title)
	if !at.IsZero() {
		head.add("  as of "+fmtClock(at, false), m.theme.dim)
	}
	cols := newLine(m.width)
	cols.add(fmt.Sprintf(" %-4s %7s %-9s %8s %5s %5s %6s  %s", "GPU", "PID", "USER", "GPU MEM", "UTIL", "CPU", "RSS", "COMMAND"), m.theme.dim)
	out := []string{head.String(), cols.String()}
	if len(procs) == 0 {
		return padBlank(append(out, "   no GPU processes seen"), rows)
	}
	sorted := append([]timeline.Process(nil), procs...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].GPU != sorted[j].GPU {
			return sorted[i].GPU < sorted[j].GPU
		}
		return sorted[i].GPUMem > sorted[j].GPUMem || math.IsNaN(sorted[j].GPUMem) && !math.IsNaN(sorted[i].GPUMem)
	})
	for _, p := range sorted {
		if len(out) == rows {
			break
		}
		ln := newLine(m.width)
		k := ink{}
		if p.InJob {
			k = m.theme.bold
		}
		ln.add(fmt.Sprintf(" %-4d %7d %-9s %8s %5s %5s %6s  ", p.GPU, p.PID, cutRunes(orNA(p.User), 9),
			fmtBytes(p.GPUMem), fmtPct(p.Util), fmtPct(p.CPU), fmtBytes(p.RSS)), k)
		ln.addText(orNA(p.Command), m.theme.dim)
		out = append(out, ln.String())
	}
	return padBlank(out, rows)
}

func orNA(s string) string {
	if s == "" {
		return na
	}
	return s
}
