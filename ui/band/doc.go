// Package band draws the two rows under the GPU list that line up with
// the sparklines column for column: the phase band (busy, stalled or idle,
// with the markers as ticks and their text where there is room) and the
// hint band (when each hint listed held, the worst on top).
//
// A band is a function of what it shows: the window and its columns, the
// phases, the markers, the hints, and the draw.Pen it draws with. ui keeps
// the state and hands them over; nothing here reads the store, the
// analysis or the clock.
package band
