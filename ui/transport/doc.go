// Package transport is a replay's transport row: playing or paused, the
// speed, a track with a knob at the cursor's place in the whole
// recording, and where that is in time. It draws from plain data (State)
// with a draw.Pen and keeps nothing; the keys that move the cursor are
// ui's time keys, over ui/playback.
package transport
