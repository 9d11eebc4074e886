// Package procs is the process table: every process that held a GPU in
// the visible window (from the slower sampling tier's lists), those still
// holding one first, then those that let go or exited during the window,
// dimmed, with when they were last seen. p gives it the keyboard, as
// htop's list has it: the arrows choose a process, whose whole command
// line, start and container show under the table; s and I sort it; / filters
// it; k signals the chosen one, after the Question (which signal, then y)
// that ui's kill.go asks and a Killer answers.
//
// Table is the table's state (focus, filter, order, selection, scroll) and
// the spans of the window it read last (Spans, read again only when the
// window's process lists or the order change); Move and Chosen are its
// selection, Place scrolls it (a scroll.Offset) for the rows it has, in
// Update, and View draws it from the spans, the time of the list at the
// cursor and how the session names its GPUs (GPUs), changing nothing. ui
// holds a Table and says which host's processes it lists.
// It reads the store's process lists and nothing else of the session;
// nothing here reads the clock.
package procs
