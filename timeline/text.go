package timeline

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// CleanText makes text from outside (a server's error, a host's stderr, a
// process's command line, a marker, a label) safe to print on a terminal,
// in a log or in a report, on one line: terminal escape sequences (colours,
// cursor moves, window titles, OSC 52 clipboard writes) are removed whole;
// other control characters, C1 ones included, and line and paragraph
// separators become spaces; bidirectional overrides and isolates (which
// reorder what is shown) are removed; bytes that are not UTF-8 become
// U+FFFD. So "\x1b]0;pwned\x07\x1b[31mboom\x1b[0m\n" reads "boom ".
func CleanText(s string) string {
	if plainText(s) {
		return s // nearly all text: nothing to do
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			i = skipEscape(s, i)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == 0x9b: // the one-character CSI of C1
			i = skipCSI(s, i)
		case r == 0x9d: // the one-character OSC
			i = skipOSC(s, i)
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			b.WriteByte(' ')
		case (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069') || r == '\u200e' || r == '\u200f' || r == '\u061c':
		default:
			b.WriteRune(r) // an invalid byte decodes as utf8.RuneError, U+FFFD
		}
	}
	return b.String()
}

// plainText says whether s is printable ASCII only.
func plainText(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// skipEscape returns the index just past the escape sequence that starts
// with the ESC at s[i]: CSI (ESC [ parameters final), OSC, DCS, SOS, PM and
// APC strings (ESC ] ... BEL or ESC \), or ESC and one more byte. A
// sequence cut off by the end of s ends there.
func skipEscape(s string, i int) int {
	j := i + 1
	if j >= len(s) {
		return j
	}
	switch s[j] {
	case '[':
		return skipCSI(s, j+1)
	case ']', 'P', 'X', '^', '_':
		return skipOSC(s, j+1)
	}
	return j + 1
}

// skipCSI returns the index past a CSI sequence's parameters and final
// byte, which start at s[j].
func skipCSI(s string, j int) int {
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x3f {
		j++ // parameter and intermediate bytes
	}
	if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
		j++ // the final byte
	}
	return j
}

// skipOSC returns the index past a string sequence whose body starts at
// s[j]: up to and including its BEL or ST (ESC \, or the C1 ST).
func skipOSC(s string, j int) int {
	for ; j < len(s); j++ {
		switch {
		case s[j] == 0x07:
			return j + 1
		case s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\':
			return j + 2
		case s[j] == 0xc2 && j+1 < len(s) && s[j+1] == 0x9c: // U+009C, ST
			return j + 2
		}
	}
	return j
}

// CleanInfo is in with every text in it through CleanText: what a reader
// of a file or a stream, written anywhere by anyone, hands on. The lists
// are new, so in's own stay as they were.
func CleanInfo(in SourceInfo) SourceInfo {
	in.Host, in.Driver, in.CUDA = CleanText(in.Host), CleanText(in.Driver), CleanText(in.CUDA)
	in.Scenario, in.Origin = CleanText(in.Scenario), CleanText(in.Origin)
	in.Command, in.Notes, in.Checks = cleanAll(in.Command), cleanAll(in.Notes), cleanAll(in.Checks)
	in.GPUs = slices.Clone(in.GPUs)
	for i := range in.GPUs {
		g := &in.GPUs[i]
		g.Name, g.UUID, g.PCIBusID = CleanText(g.Name), CleanText(g.UUID), CleanText(g.PCIBusID)
		g.Host, g.MIGProfile = CleanText(g.Host), CleanText(g.MIGProfile)
	}
	in.Hosts = slices.Clone(in.Hosts)
	for i := range in.Hosts {
		h := &in.Hosts[i]
		h.Name, h.Driver, h.CUDA, h.Notes = CleanText(h.Name), CleanText(h.Driver), CleanText(h.CUDA), cleanAll(h.Notes)
	}
	return in
}

// cleanAll is ss, a new list, through CleanText.
func cleanAll(ss []string) []string {
	out := slices.Clone(ss)
	for i, s := range out {
		out[i] = CleanText(s)
	}
	return out
}
