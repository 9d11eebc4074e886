package ui

import (
	"strings"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/keymap"
)

// prompt is a one-line question in the footer: a marker's text (m), a time
// to jump to (t or /), the process table's filter (/ in the table). It is a few lines rather than bubbles' textinput
// because that one blinks its cursor on a timer, and a screen that redraws
// itself twice a second costs bytes over SSH and breaks "a paused screen
// writes nothing".
type prompt struct {
	active bool
	label  string
	text   []rune
	// done receives the answer on enter.
	done func(m *Model, answer string)
	// edit, if set, receives the answer as it is typed (a filter that
	// narrows as it goes), and cancel the way back on esc.
	edit, cancel func(m *Model, answer string)
}

// maxPromptRunes bounds an answer: markers are short labels.
const maxPromptRunes = 120

func (m *Model) ask(label string, done func(*Model, string)) {
	m.prompt = prompt{active: true, label: label, done: done}
}

// promptActions edit the answer: the key table's answering keys give it,
// drop it or erase it, and any other key types itself.
func promptActions(k *keymap.Map) []action {
	asking := func(s *keyFacts) bool { return s.asking }
	return []action{
		{b: &k.Answer, on: asking, do: keyDo(func(m *Model) {
			answer := strings.TrimSpace(string(m.prompt.text))
			done := m.prompt.done
			m.prompt = prompt{}
			if answer != "" {
				done(m, answer)
			}
		})},
		{b: &k.Cancel, on: asking, do: keyDo(func(m *Model) {
			cancel := m.prompt.cancel
			m.prompt = prompt{}
			if cancel != nil {
				cancel(m, "")
			}
		})},
		{b: &k.Erase, on: asking, do: editPrompt(func(p *prompt, _ tea.KeyMsg) {
			if len(p.text) > 0 {
				p.text = p.text[:len(p.text)-1]
			}
		})},
		{b: &k.EraseAll, on: asking, do: editPrompt(func(p *prompt, _ tea.KeyMsg) { p.text = p.text[:0] })},
		{do: editPrompt(func(p *prompt, k tea.KeyMsg) {
			switch k.Type {
			case tea.KeySpace:
				p.add(' ')
			case tea.KeyRunes:
				for _, r := range k.Runes {
					p.add(r)
				}
			}
		})},
	}
}

// editPrompt changes the answer, then hands it to a question that
// follows the typing (a filter that narrows as it goes).
func editPrompt(f func(p *prompt, k tea.KeyMsg)) func(*Model, tea.KeyMsg) tea.Cmd {
	return func(m *Model, k tea.KeyMsg) tea.Cmd {
		f(&m.prompt, k)
		if m.prompt.edit != nil {
			m.prompt.edit(m, string(m.prompt.text))
		}
		return nil
	}
}

func (p *prompt) add(r rune) {
	if unicode.IsPrint(r) && len(p.text) < maxPromptRunes {
		p.text = append(p.text, r)
	}
}

// viewPrompt replaces the footer while a question is open.
func (m *Model) viewPrompt() string {
	ln := m.newLine(m.width)
	ln.Add(" "+m.prompt.label+" ", m.theme.Bold)
	text := string(m.prompt.text)
	// Keep the end of a long answer in view, where the typing is.
	room := m.width - ln.Width() - 12
	if r := []rune(text); room > 0 && len(r) > room {
		text = string(r[len(r)-room:])
	}
	ln.Add(text+"_", draw.Ink{})
	ok, cancel := m.keys.Answer.Help(), m.keys.Cancel.Help()
	ln.Add("  "+ok.Key+" "+ok.Desc+", "+cancel.Key+" "+cancel.Desc, m.theme.Dim)
	return ln.String()
}
