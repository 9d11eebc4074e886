// Package help draws the ? screen: every key of the key table under its
// group with what it does, what every number, abbreviation and mark on the
// screen means (Terms), what gputop itself costs, and what the source
// noted and every check made looking for GPUs; scrolled a page at a time.
//
// Screen is its own state (open, and how far scrolled) with its keys as
// rows of the key table. A Page is what it shows, handed over by ui (the key table, gputop's own
// cost at the cursor, the source's notes and checks) with the draw.Pen it
// draws with; nothing here reads the store or the clock.
package help
