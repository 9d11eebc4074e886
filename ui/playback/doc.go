// Package playback is the screen's cursor over the timeline and how it
// moves: following the newest sample (a live view), playing at a speed
// (a replay), or paused; the window that ends at it (the zoom levels, or
// the whole session); the replay speeds; and ParseTime, how the t key
// and replay's --start read a time.
//
// Live and replay are the same code here: a live view is a replay whose
// cursor follows the newest sample. Every time comes from the samples'
// first and last times and from the ticks' own times, which the caller
// hands in; nothing here reads the clock. It imports the standard
// library only.
package playback
