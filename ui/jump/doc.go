// Package jump is where `[` and `]` take the cursor: the places to look
// (every marker, the start of every episode of every hint and of every
// stall inside one), and where on each the screen shows what it names.
// Pure: times and hints in, a time out; the screen asks its analysis.
package jump
