// Package hints draws the hints panel (the hints listed at the cursor,
// worst first, each in the lines its evidence needs) and an opened hint in
// full (its span, standing, next step and every episode), where the detail
// graph goes.
//
// A Panel is what it shows: the hints, the cursor, the one opened, and the
// draw.Pen it draws with. ui keeps which hint is open and how far its
// detail is scrolled, and asks the analysis; nothing here judges, reads
// the store or the clock.
package hints
