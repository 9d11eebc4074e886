package analysis

import "github.com/gputop-dev/gputop/timeline/analysis/frame"

// SetBudget bounds what the Engine's columns hold to about bytes: past it,
// the oldest pages of every series are let go of, down to three quarters
// of it, and what the rules read of them is unknown. What was judged of
// them stays (the verdicts, the stalls, the hints ended, the phases); a
// moment before them is judged on what was kept of it. An episode still
// going on that began among them is described from the columns held: its
// figures are theirs (a degraded link's, PCIe or NVLink, are counted as
// its columns close, and stay). Its start and end are where they were
// found while their columns were held (Frame.Edges), so the hints name
// the same moments (TestBudgetKeepsTheDemosHints). The newest two pages
// are always kept. 0 keeps every column, as a report does.
func (e *Engine) SetBudget(bytes int) { e.budget = bytes }

// keepWithin lets go of the oldest pages while the columns hold more than
// the budget; asked as each page begins.
func (e *Engine) keepWithin() {
	page := (e.f.N - 1) / frame.PageCols
	if e.budget <= 0 || page == e.pageAsked {
		return
	}
	e.pageAsked = page
	// The PCIe and NVLink logs go with the columns, not counted: a byte a
	// figure, a run a change of a GPU's links.
	var all []frame.Paged
	for _, g := range e.f.GPUs {
		all = append(all, g.AllSeries()...)
	}
	for k := range e.f.Hosts {
		all = append(all, e.f.Hosts[k].AllSeries()...)
	}
	held := 0
	for _, s := range all {
		held += s.Bytes()
	}
	newest := page * frame.PageCols // where the page just begun starts
	for held > e.budget*3/4 && e.heldFrom+frame.PageCols <= newest-frame.PageCols {
		e.heldFrom += frame.PageCols
		for _, s := range all {
			held -= s.Release(e.heldFrom)
		}
		e.f.HeldFrom = e.heldFrom
	}
	for _, lg := range e.health.link {
		lg.Release(e.heldFrom)
	}
	for _, lg := range e.health.nvl {
		lg.release(e.heldFrom)
	}
}
