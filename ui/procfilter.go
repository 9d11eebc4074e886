package ui

import (
	"strings"
)

// filterKey is / in the process table: a filter that narrows the table as
// it is typed, by a part of the command line, the user or the PID (any
// case), as htop's F4. Enter keeps it, esc puts the one before back, and
// an empty filter shows every process.
func (m *Model) filterKey() {
	before := m.procs.Filter
	m.ask("filter processes (command, user or PID):", func(m *Model, answer string) {
		m.procs.Filter = answer
	})
	m.prompt.text = []rune(before)
	m.prompt.edit = func(m *Model, text string) { m.procs.Filter = strings.TrimSpace(text) }
	m.prompt.cancel = func(m *Model, _ string) { m.procs.Filter = before }
}
