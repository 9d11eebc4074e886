package timeline

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestCleanText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"python train.py --lr 3e-4", "python train.py --lr 3e-4"},
		{"\x1b[31mboom\x1b[0m", "boom"},
		{"\x1b]0;pwned\x07title", "title"},
		{"\x1b]52;c;ZXZpbA==\x1b\\clip", "clip"},
		{"a\nb\rc\td", "a b c d"},
		{"GPU 温度 ok", "GPU 温度 ok"},
		{"\u202eevil\u202c txt", "evil txt"},
		{"\xff\xfe bad", "\ufffd\ufffd bad"},
		{"cut \x1b[", "cut "},
		{"cut \x1b]0;never ends", "cut "},
		{"c1 \u009b31mred", "c1 red"},
		{"c1 \u009d0;t\u009cok", "c1 ok"},
		{"\x1bPq#0;2;0;0;0\x1b\\sixel", "sixel"},
		{"bell\a", "bell "},
		{"line\u2028sep", "line sep"},
	} {
		if got := CleanText(tt.in); got != tt.want {
			t.Errorf("CleanText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzCleanText(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[1;31mx\x1b[0m", "\x1b]0;t\x07", "\u009b2J", "\xff", "\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := CleanText(s)
		if !utf8.ValidString(got) {
			t.Fatalf("CleanText(%q) = %q: not UTF-8", s, got)
		}
		if strings.ContainsFunc(got, func(r rune) bool { return unicode.IsControl(r) || r == '\u202e' }) {
			t.Fatalf("CleanText(%q) = %q: a control character is left", s, got)
		}
		if len(got) > 3*len(s) {
			t.Fatalf("CleanText grew %d bytes into %d", len(s), len(got))
		}
	})
}
