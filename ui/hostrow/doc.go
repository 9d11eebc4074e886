// Package hostrow draws one host's line of the hosts screen: its name, the
// sparkline of its GPUs' mean utilisation, and what holds at the cursor
// (how many GPUs are busy, their mean and lowest utilisation, their power,
// its worst ongoing hint), or why it has no data and since when.
//
// A Row is what ui read of the host (its figures at the cursor, the
// sparkline it drew); Draw lays it out with a draw.Pen. Nothing here reads
// the store or the clock.
package hostrow
