// Package hostpanel draws the host panel under the bands: the selected
// host's CPU (with iowait and load), RAM and swap, disk, and a bar per
// core, so one pegged core among idle ones (a single-threaded loader)
// stands out; or, where the host gave no readings, why, in the rows it
// would have had.
//
// A Panel is what it shows, read by ui from the store at the cursor and
// over the window (the readings, the sparklines drawn, each core's share),
// with the room the layout gives it and the draw.Pen it draws with.
// Nothing here reads the store or the clock.
package hostpanel
