package ui

import "strings"

// filterKey is / in the process table: a filter that narrows the table as
// it is typed, by a part of the command line, the user or the PID (any
// case), as htop's F4. Enter keeps it, esc puts the one before back, and
// an empty filter shows every process.
func (m *Model) filterKey() {
	before := m.procs.Filter
	m.prompt.AskEditing("filter processes (command, user or PID):", before,
		func(answer string) { m.procs.Filter = answer },
		func(text string) { m.procs.Filter = strings.TrimSpace(text) },
		func(string) { m.procs.Filter = before })
}
