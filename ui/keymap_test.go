package ui

import (
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/keymap"
)

// keyState is a state of the screen the key tests start from.
type keyState struct {
	name string
	make func(t testing.TB) *Model
}

// newKeyTestModel is newTestModel with a source of its own (one that takes
// markers, or one without GPUs) and the samples it is given.
func newKeyTestModel(t testing.TB, src timeline.Source, samples []timeline.Sample, w, h int, opts Options) *Model {
	t.Helper()
	r := lipgloss.NewRenderer(os.Stdout)
	r.SetColorProfile(termenv.ANSI)
	opts.Source, opts.Renderer = src, r
	m := New(opts)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	if len(samples) > 0 {
		m.Update(samplesMsg{samples: samples})
	}
	return m
}

// keyStates are the states whose keys differ: what a live session with a
// recorder offers, a bare live source, a replay, a hint open, no GPUs, no
// samples yet.
func keyStates(samples []timeline.Sample, w, h int) []keyState {
	return []keyState{
		{"live", func(t testing.TB) *Model {
			src := &markSource{sliceSource: sliceSource{info: fixtureInfo(timeline.Live)}}
			return newKeyTestModel(t, src, samples, w, h, Options{Recorder: &fakeRecorder{}})
		}},
		{"live, recording", func(t testing.TB) *Model {
			src := &markSource{sliceSource: sliceSource{info: fixtureInfo(timeline.Live)}}
			return newKeyTestModel(t, src, samples, w, h, Options{Recorder: &fakeRecorder{on: true}})
		}},
		{"live, paused", func(t testing.TB) *Model {
			src := &markSource{sliceSource: sliceSource{info: fixtureInfo(timeline.Live)}}
			m := newKeyTestModel(t, src, samples, w, h, Options{Recorder: &fakeRecorder{}})
			press(m, " ")
			return m
		}},
		{"live, a hint open", func(t testing.TB) *Model {
			src := &markSource{sliceSource: sliceSource{info: fixtureInfo(timeline.Live)}}
			m := newKeyTestModel(t, src, samples, w, h, Options{Recorder: &fakeRecorder{}})
			press(m, "h")
			return m
		}},
		{"live, no recorder, no markers", func(t testing.TB) *Model {
			return newKeyTestModel(t, &sliceSource{info: fixtureInfo(timeline.Live)}, samples, w, h, Options{})
		}},
		{"live, no GPUs", func(t testing.TB) *Model {
			info := fixtureInfo(timeline.Live)
			info.GPUs = nil
			return newKeyTestModel(t, &sliceSource{info: info}, hostOnly(samples), w, h, Options{})
		}},
		{"live, no samples yet", func(t testing.TB) *Model {
			src := &markSource{sliceSource: sliceSource{info: fixtureInfo(timeline.Live)}}
			return newKeyTestModel(t, src, nil, w, h, Options{Recorder: &fakeRecorder{}})
		}},
		{"replay, playing", func(t testing.TB) *Model {
			m := newKeyTestModel(t, &sliceSource{info: fixtureInfo(timeline.Replay)}, samples, w, h, Options{Speed: 4})
			press(m, " ")
			return m
		}},
		{"replay, as it opens", func(t testing.TB) *Model {
			m := newKeyTestModel(t, &sliceSource{info: fixtureInfo(timeline.Replay)}, samples, w, h, Options{})
			m.Update(sourceDoneMsg{})
			return m
		}},
	}
}

// hostOnly keeps the host's metrics of samples: a machine without GPUs.
func hostOnly(samples []timeline.Sample) []timeline.Sample {
	out := make([]timeline.Sample, len(samples))
	for i, s := range samples {
		var ms []timeline.Metric
		for _, x := range s.Metrics() {
			if !strings.HasPrefix(x.Key.Device, "gpu") {
				ms = append(ms, x)
			}
		}
		out[i] = timeline.Sample{At: s.At}.WithMetrics(ms)
	}
	return out
}

// everyKey is every key bubbletea can report: each printable character,
// with and without alt, and each named key.
func everyKey() []tea.KeyMsg {
	var out []tea.KeyMsg
	for r := rune(0x21); r < 0x7f; r++ {
		out = append(out, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}},
			tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: true})
	}
	for t := tea.KeyType(-300); t < 300; t++ {
		if t != tea.KeyRunes && t.String() != "" {
			k := tea.KeyMsg{Type: t}
			if t == tea.KeySpace {
				k.Runes = []rune{' '} // as bubbletea reads it
			}
			out = append(out, k)
		}
	}
	return out
}

// bindingsWith are the bindings that list the key, enabled or not.
func bindingsWith(m *Model, k string) []*keymap.Binding {
	var out []*keymap.Binding
	for _, b := range m.keys.All() {
		if slices.Contains(b.Keys(), k) {
			out = append(out, b)
		}
	}
	return out
}

func TestEveryBindingIsAKeyBubbleteaReports(t *testing.T) {
	names := map[string]bool{}
	for _, k := range everyKey() {
		names[k.String()] = true
	}
	for _, b := range []tea.MouseButton{tea.MouseButtonLeft, tea.MouseButtonWheelUp, tea.MouseButtonWheelDown} {
		names[tea.MouseMsg{Button: b, Action: tea.MouseActionPress}.String()] = true
	}
	for _, b := range keymap.New(false, false).All() {
		if len(b.Keys()) == 0 || b.Text == "" {
			t.Errorf("binding %q has no keys or no text", b.Text)
		}
		for _, k := range b.Keys() {
			if !names[k] {
				t.Errorf("%q (%s) is no key bubbletea reports: nothing would ever match it", k, b.Text)
			}
		}
	}
}

// TestEveryBindingIsInTheHelp: the ? screen lists every binding of the
// table under its group, with its keys and its text; and every binding of
// the keymap.Map is in a group, once.
func TestEveryBindingIsInTheHelp(t *testing.T) {
	m := newTestModel(t, timeline.Live, fixtureSamples(30), 200, 50, Options{})
	lines := m.helpLines()
	for i := range lines {
		lines[i] = ansi.Strip(lines[i])
	}
	help := strings.Join(lines, "\n")
	for _, g := range m.keys.Groups {
		if !slices.Contains(lines, " "+g.Title) {
			t.Errorf("the help has no section %q", g.Title)
		}
		for _, b := range g.Bindings {
			lead := "  " + keymap.Names(b) + " "
			found := false
			for _, l := range lines {
				if strings.HasPrefix(l, lead) && strings.TrimSpace(l[len(lead):]) == b.Text {
					found = true
				}
			}
			if !found {
				t.Errorf("the help has no line %q ... %q:\n%s", lead, b.Text, help)
			}
		}
	}
	// Every binding field of the keymap.Map is in exactly one group.
	seen := map[uintptr]int{}
	for _, b := range m.keys.All() {
		seen[reflect.ValueOf(b).Pointer()]++
	}
	v := reflect.ValueOf(m.keys.Map).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if f.Type() != reflect.TypeOf(keymap.Binding{}) {
			continue
		}
		if n := seen[f.Addr().Pointer()]; n != 1 {
			t.Errorf("binding %s is in %d groups of the help, want 1", v.Type().Field(i).Name, n)
		}
	}
}

// TestNoKeyWorksOutsideTheTable drives the model with every key in every
// state: a key that changes the screen or asks for a command must be a key
// of an enabled binding, and a key of a disabled one may at most answer in
// the footer with its reason.
func TestNoKeyWorksOutsideTheTable(t *testing.T) {
	samples := fixtureSamples(120)
	keys := everyKey()
	for _, st := range keyStates(samples, 80, 24) {
		t.Run(st.name, func(t *testing.T) {
			var m *Model
			for _, k := range keys {
				// A key that did nothing leaves the model as it was, for
				// the next key; after one that did something, start again.
				if m == nil {
					m = st.make(t)
				}
				bound := bindingsWith(m, k.String())
				enabled := slices.ContainsFunc(bound, func(b *keymap.Binding) bool { return b.Enabled() })
				why := m.keys.WhyNot(k.String())
				before, was := screen(m), stateOf(m)
				_, cmd := m.Update(k)
				after, is := screen(m), stateOf(m)
				if after == before && is == was && cmd == nil {
					continue
				}
				note := m.note
				m = nil
				switch {
				case enabled:
				case len(bound) == 0:
					t.Errorf("%q is in no binding of the key table, but it changed the screen or the state (%s to %s):\n%s",
						k.String(), was, is, diffRows(before, after))
				case cmd != nil || is != was || !onlyFooterDiffers(before, after) || why == "" || note != why:
					t.Errorf("%q is disabled here but did something (note %q):\n%s", k.String(), note, diffRows(before, after))
				}
			}
		})
	}
}

// TestHelpKeys: while the help is open its scrolling keys scroll it, quit
// quits, and any other key closes it.
func TestHelpKeys(t *testing.T) {
	samples := fixtureSamples(30)
	for _, k := range everyKey() {
		m := newTestModel(t, timeline.Live, samples, 80, 24, Options{})
		press(m, "?")
		_, cmd := m.Update(k)
		scrolls := false
		for _, b := range []*keymap.Binding{&m.keys.HelpUp, &m.keys.HelpDown, &m.keys.HelpPageUp, &m.keys.HelpPageDown, &m.keys.HelpFirst, &m.keys.HelpLast} {
			scrolls = scrolls || slices.Contains(b.Keys(), k.String())
		}
		quits := slices.Contains(m.keys.Quit.Keys(), k.String())
		switch {
		case scrolls && !m.help.IsOpen():
			t.Errorf("%q scrolls the help but closed it", k.String())
		case !scrolls && m.help.IsOpen():
			t.Errorf("%q is no key of the help's own, but did not close it", k.String())
		case quits != (cmd != nil):
			t.Errorf("%q: quit %v, command %v", k.String(), quits, cmd != nil)
		}
	}
}

// stateOf is what a key can change besides the screen's note, including
// what the screen may not show at its size.
func stateOf(m *Model) string {
	p := m.play
	return fmt.Sprint("gpu ", m.list.GPU, " metric ", m.detail.metric, " hint ", m.hint.sel, " help ", m.help.IsOpen(), m.help.Top(),
		" prompt ", m.prompt.Active(), " cursor ", p.Cursor.Format("15:04:05.000"), " motion ", p.Motion,
		" speed ", p.Speed, " zoom ", p.Zoom)
}

// onlyFooterDiffers says whether b is a with another footer: its last row,
// or its last two where the footer's answer is longer than one.
func onlyFooterDiffers(a, b string) bool {
	ra, rb := strings.Split(a, "\n"), strings.Split(b, "\n")
	if len(ra) != len(rb) {
		return false
	}
	n := len(ra)
	return slices.Equal(ra[:n-1], rb[:n-1]) || n >= 2 && slices.Equal(ra[:n-2], rb[:n-2])
}

func diffRows(a, b string) string {
	ra, rb := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for i := 0; i < max(len(ra), len(rb)); i++ {
		var x, y string
		if i < len(ra) {
			x = ra[i]
		}
		if i < len(rb) {
			y = rb[i]
		}
		if x != y {
			out = append(out, fmt.Sprintf("row %d\n  before %q\n  after  %q", i, x, y))
		}
	}
	return strings.Join(out, "\n")
}

// TestFooterOffersWhatWorksNow: each state's footer offers its own keys,
// and no others, fits the width and ends with the help key.
func TestFooterOffersWhatWorksNow(t *testing.T) {
	samples := fixtureSamples(90)
	want := map[string]struct{ has, hasNot []string }{
		"live":                          {[]string{"space pause", "←→ scroll", "m mark", "r record", "h hint"}, []string{"<>", "esc", "play", "step"}},
		"live, recording":               {[]string{"r stop"}, []string{"r record"}},
		"live, paused":                  {[]string{"space live"}, []string{"space pause"}},
		"live, a hint open":             {[]string{"h next", "esc close"}, []string{"h hint"}},
		"live, no recorder, no markers": {[]string{"h hint"}, []string{"m mark", "r record"}},
		"live, no GPUs":                 {[]string{"space pause"}, []string{"GPU", "tab"}},
		"live, no samples yet":          {[]string{"m mark", "r record"}, []string{"space", "scroll", "zoom", "t time", "[]", "h hint"}},
		"replay, playing":               {[]string{"space pause", "←→ step", "<> speed"}, []string{"m mark", "r record", "scroll"}},
		"replay, as it opens":           {[]string{"space play", "←→ step", "<> speed", "h hint"}, []string{"m mark", "scroll"}},
	}
	for _, st := range keyStates(samples, 200, 50) {
		m := st.make(t)
		w, ok := want[st.name]
		if !ok {
			t.Fatalf("no footer expectations for %q", st.name)
		}
		for _, width := range []int{200, 60} {
			m.Update(tea.WindowSizeMsg{Width: width, Height: 50})
			f := footerOf(m)
			if n := ansi.StringWidth(f); n > width {
				t.Errorf("%s: footer is %d wide at %d: %q", st.name, n, width, f)
			}
			if !strings.HasSuffix(f, " ? help") {
				t.Errorf("%s at %d: the footer does not end with ? help: %q", st.name, width, f)
			}
			if width < 200 {
				continue
			}
			for _, s := range w.has {
				if !strings.Contains(f, " "+s) {
					t.Errorf("%s: the footer should offer %q: %q", st.name, s, f)
				}
			}
			for _, s := range w.hasNot {
				if strings.Contains(f, " "+s) {
					t.Errorf("%s: the footer offers %q, which does nothing here: %q", st.name, s, f)
				}
			}
		}
	}
}

// TestFooterKeysDoSomething: every key the footer offers, or the one
// paired with it (up when down does nothing at the first GPU), changes the
// screen or the state, or asks for a command.
func TestFooterKeysDoSomething(t *testing.T) {
	samples := fixtureSamples(120)
	for _, st := range keyStates(samples, 120, 40) {
		m := st.make(t)
		for _, b := range m.keys.Footer {
			if !b.Offered() {
				continue
			}
			did := false
			for _, x := range []*keymap.Binding{b, b.Pair} {
				if x == nil || !x.Enabled() {
					continue
				}
				for _, k := range x.Keys() {
					fresh := st.make(t)
					before, was := screen(fresh), stateOf(fresh)
					_, cmd := fresh.Update(keyMsg(k))
					did = did || cmd != nil || screen(fresh) != before || stateOf(fresh) != was
				}
			}
			if !did {
				t.Errorf("%s: the footer offers %q %q, but it does nothing", st.name, b.Help().Key, b.Help().Desc)
			}
		}
	}
}

// keyMsg is the message bubbletea sends for the key a binding names.
func keyMsg(name string) tea.KeyMsg {
	for _, k := range everyKey() {
		if k.String() == name {
			return k
		}
	}
	panic("no key " + name)
}

// TestGoldenFooters draws each state's footer at 80x24 and 200x50.
func TestGoldenFooters(t *testing.T) {
	samples := fixtureSamples(90)
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		var b strings.Builder
		for _, st := range keyStates(samples, size[0], size[1]) {
			m := st.make(t)
			checkScreenFits(t, screen(m), size[0], size[1])
			fmt.Fprintf(&b, "%s\n%s\n", st.name, footerOf(m))
		}
		for _, ascii := range []bool{false, true} {
			m := newTestModel(t, timeline.Live, samples, size[0], size[1], Options{ASCII: ascii, Plain: true})
			press(m, "<")
			fmt.Fprintf(&b, "live, < pressed, ascii %v\n%s\n", ascii, footerOf(m))
		}
		checkGolden(t, fmt.Sprintf("footer_%dx%d", size[0], size[1]), b.String())
	}
}

// TestGoldenHelp draws the first page of the help at 80x24 and 200x50.
func TestGoldenHelp(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		m := newTestModel(t, timeline.Live, fixtureSamples(90), size[0], size[1], Options{})
		press(m, "?")
		got := screen(m)
		checkScreenFits(t, got, size[0], size[1])
		checkGolden(t, fmt.Sprintf("help_%dx%d", size[0], size[1]), got)
	}
}

// TestDocsKeyTableIsTheHelp: the key table of docs/screen.md lists what
// the help lists, in its order and words.
func TestDocsKeyTableIsTheHelp(t *testing.T) {
	readme, err := os.ReadFile("../docs/screen.md")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("| key | does |\n|---|---|\n")
	for _, g := range keymap.New(false, false).Groups {
		fmt.Fprintf(&b, "| **%s** | |\n", g.Title)
		for _, x := range g.Bindings {
			fmt.Fprintf(&b, "| `%s` | %s |\n", strings.ReplaceAll(keymap.Names(x), ", ", "`, `"), x.Text)
		}
	}
	if want := b.String(); !strings.Contains(string(readme), want) {
		t.Errorf("docs/screen.md's key table is not the help's; it should read:\n%s", want)
	}
}
