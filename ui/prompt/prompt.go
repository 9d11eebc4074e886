package prompt

import (
	"strings"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/keymap"
)

// Prompt is the question open in the footer, if any. Its zero value asks
// nothing.
type Prompt struct {
	active bool
	label  string
	text   []rune
	// done receives the answer on enter, unless it is empty.
	done func(answer string)
	// edit, if set, receives the answer as it is typed (a filter that
	// narrows as it goes), and cancel is told of esc.
	edit, cancel func(answer string)
}

// maxRunes bounds an answer: markers are short labels.
const maxRunes = 120

// Ask opens a question; done receives the answer given with enter.
func (p *Prompt) Ask(label string, done func(answer string)) {
	*p = Prompt{active: true, label: label, done: done}
}

// AskEditing opens a question with an answer typed already, whose edit
// hears every change to it and cancel hears esc.
func (p *Prompt) AskEditing(label, text string, done, edit, cancel func(answer string)) {
	*p = Prompt{active: true, label: label, text: []rune(text), done: done, edit: edit, cancel: cancel}
}

// Active says a question is open: it takes every key.
func (p *Prompt) Active() bool { return p.active }

// Actions are the question's rows of the key table: enter gives the
// answer, esc drops it, backspace and ctrl+u erase, and any other key
// types itself.
func (p *Prompt) Actions(k *keymap.Map) []keymap.Action {
	return []keymap.Action{
		{Binding: &k.Answer, On: p.Active, Do: func(tea.KeyMsg) tea.Cmd {
			answer, done := strings.TrimSpace(string(p.text)), p.done
			*p = Prompt{}
			if answer != "" {
				done(answer)
			}
			return nil
		}},
		{Binding: &k.Cancel, On: p.Active, Do: func(tea.KeyMsg) tea.Cmd {
			cancel := p.cancel
			*p = Prompt{}
			if cancel != nil {
				cancel("")
			}
			return nil
		}},
		{Binding: &k.Erase, On: p.Active, Do: p.editing(func(tea.KeyMsg) {
			if len(p.text) > 0 {
				p.text = p.text[:len(p.text)-1]
			}
		})},
		{Binding: &k.EraseAll, On: p.Active, Do: p.editing(func(tea.KeyMsg) { p.text = p.text[:0] })},
		{Do: p.editing(func(k tea.KeyMsg) {
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

// editing is a change to the answer, which edit then hears.
func (p *Prompt) editing(change func(k tea.KeyMsg)) func(tea.KeyMsg) tea.Cmd {
	return func(k tea.KeyMsg) tea.Cmd {
		change(k)
		if p.edit != nil {
			p.edit(string(p.text))
		}
		return nil
	}
}

func (p *Prompt) add(r rune) {
	if unicode.IsPrint(r) && len(p.text) < maxRunes {
		p.text = append(p.text, r)
	}
}

// View is the row that replaces the footer while the question is open.
func (p *Prompt) View(pen draw.Pen, k *keymap.Map) string {
	ln := pen.NewLine(pen.Width)
	ln.Add(" "+p.label+" ", pen.Theme.Bold)
	text := string(p.text)
	// Keep the end of a long answer in view, where the typing is.
	room := pen.Width - ln.Width() - 12
	if r := []rune(text); room > 0 && len(r) > room {
		text = string(r[len(r)-room:])
	}
	ln.Add(text+"_", draw.Ink{})
	ok, cancel := k.Answer.Help(), k.Cancel.Help()
	ln.Add("  "+ok.Key+" "+ok.Desc+", "+cancel.Key+" "+cancel.Desc, pen.Theme.Dim)
	return ln.String()
}
