package ui

import (
	"strconv"
	"strings"

	"github.com/gputop-dev/gputop/timeline"
)

// filterKey is / in the process table: a filter that narrows the table as
// it is typed, by a part of the command line, the user or the PID (any
// case), as htop's F4. Enter keeps it, esc puts the one before back, and
// an empty filter shows every process.
func (m *Model) filterKey() {
	before := m.procs.filter
	m.ask("filter processes (command, user or PID):", func(m *Model, answer string) {
		m.procs.filter = answer
	})
	m.prompt.text = []rune(before)
	m.prompt.edit = func(m *Model, text string) { m.procs.filter = strings.TrimSpace(text) }
	m.prompt.cancel = func(m *Model, _ string) { m.procs.filter = before }
}

// procMatches says whether a process matches the filter.
func procMatches(p *timeline.ProcessSpan, filter string) bool {
	f := strings.ToLower(filter)
	return strings.Contains(strings.ToLower(p.Command), f) || strings.Contains(strings.ToLower(p.User), f) ||
		strings.Contains(strconv.Itoa(p.PID), f)
}
