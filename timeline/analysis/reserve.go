package analysis

import "time"

// maxReserveCols bounds ReserveSpan: two days of columns a second. A
// longer session's columns grow as they go, as without it.
const maxReserveCols = 2 * 86400

// ReserveSpan makes the Engine's per-column series, as they are made,
// with room for a session of d (a recording's span, from its index), so
// that they do not grow by doubling: a day of 8 GPUs allocated 126 MB of
// columns, half of them copied and let go. It changes nothing the Engine
// says. Call it before the first sample.
func (e *Engine) ReserveSpan(d time.Duration) {
	if e.samples > 0 || d <= 0 {
		return
	}
	n := int(min(d/columnStep(e.info), maxReserveCols)) + 2
	e.reserveCols, e.health.reserve = n, n
	for k := range e.f.Hosts {
		h := &e.f.Hosts[k]
		h.Busy, h.Single, h.IOHigh = make([]int8, 0, n), make([]int8, 0, n), make([]int8, 0, n)
	}
}
