package analysis

import "time"

// maxReserveCols bounds ReserveSpan: two days of columns a second. A
// longer session's columns grow as they go, as without it.
const maxReserveCols = 2 * 86400

// ReserveSpan makes the Engine's per-column logs of PCIe links, as they
// are made, with room for a session of d (a recording's span, from its
// index), so that they do not grow by doubling (the series are kept in
// pages and never copied). It changes nothing the Engine says. Call it
// before the first sample.
func (e *Engine) ReserveSpan(d time.Duration) {
	if e.samples > 0 || d <= 0 {
		return
	}
	e.health.reserve = int(min(d/columnStep(e.info), maxReserveCols)) + 2
}
