package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/help"
	"github.com/gputop-dev/gputop/ui/procs"
)

// TestEveryAbbreviationIsInTheHelp: every short label the screen draws
// (row labels, throttle flags, the host's fields, the process table's
// columns, the band labels) is a term of the help's table.
func TestEveryAbbreviationIsInTheHelp(t *testing.T) {
	terms := map[string]bool{}
	for _, ht := range help.Terms {
		for _, w := range strings.FieldsFunc(ht.Term+", "+ht.ASCII, func(r rune) bool { return r == ',' }) {
			terms[strings.TrimSpace(w)] = true
		}
	}
	var drawn []string
	for _, r := range append(sparkRows(true), dramRow, occRow) {
		drawn = append(drawn, r.label)
	}
	for _, bit := range []int{timeline.ThrottleThermal, timeline.ThrottlePower, timeline.ThrottleBoardLimit, timeline.ThrottleSyncBoost} {
		drawn = append(drawn, draw.ThrottleFlag(float64(bit)))
	}
	drawn = append(drawn, procs.ColumnNames[:]...)
	drawn = append(drawn, "RSS", "START", "END", "WHERE", "iow", "iowait", "ld", "load", "RAM", "ram", "sw", "swap", "cpu",
		"cpus", "phase", "hints", "LOST", "N/A", "mean", "lo", "7/8 busy", "PCIe in", "clocks held", "NVLink", "▸", "┃")
	for _, d := range drawn {
		if d == "GPU" || d == "PID" || d == "USER" {
			continue // said in words in the table's header
		}
		if !terms[d] {
			t.Errorf("%q is drawn on the screen but the help does not say what it means", d)
		}
	}
}

// The help pages as less does: space and pgdown a page, pgup back, home
// and end to its ends, the arrows a line; and says where it is.
func TestHelpPages(t *testing.T) {
	m := newTestModel(t, timeline.Live, fixtureSamples(60), 80, 24, Options{})
	press(m, "?")
	total := len(m.helpLines())
	if !strings.Contains(footerOf(m), "page 1/") {
		t.Fatalf("the help's last row says which page: %q", footerOf(m))
	}
	press(m, " ")
	if m.help.Top() != 22 {
		t.Errorf("space moves a page (22 lines at 80x24, one kept), not to %d", m.help.Top())
	}
	m.Update(tea.KeyMsg{Type: tea.KeyPgDown})
	if m.help.Top() != 44 {
		t.Errorf("pgdown moves a page, to 44, not %d", m.help.Top())
	}
	m.Update(tea.KeyMsg{Type: tea.KeyPgUp})
	if m.help.Top() != 22 {
		t.Errorf("pgup moves a page back, to 22, not %d", m.help.Top())
	}
	press(m, "down")
	if m.help.Top() != 23 {
		t.Errorf("down moves a line, to 23, not %d", m.help.Top())
	}
	m.Update(tea.KeyMsg{Type: tea.KeyEnd})
	screen(m)
	if m.help.Top() != total-23 {
		t.Errorf("end shows the last page (from line %d), not from %d", total-23, m.help.Top())
	}
	m.Update(tea.KeyMsg{Type: tea.KeyHome})
	if screen(m); m.help.Top() != 0 {
		t.Errorf("home goes to the top, not %d", m.help.Top())
	}
	if !m.help.IsOpen() {
		t.Fatal("the help's keys closed it")
	}
}

// helpLines is the help, every line cut to the screen's width.
func (m *Model) helpLines() []string { return m.helpPage().Lines() }
