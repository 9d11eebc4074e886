package main

import (
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/x/term"
)

// asciiOnly says whether the terminal described by the environment cannot
// draw gputop's Unicode (block elements, box drawing, arrows), so that the
// screen falls back to ASCII by itself, as --ascii does: a dumb terminal,
// or a locale that is set and is not UTF-8 (LANG=C, POSIX, latin1). An unset
// locale keeps Unicode: containers and ssh sessions often set none while
// their terminal is UTF-8.
func asciiOnly(getenv func(string) string) bool {
	if getenv("TERM") == "dumb" {
		return true
	}
	// The C library's order: LC_ALL overrides LC_CTYPE, which overrides LANG.
	for _, name := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := getenv(name); v != "" {
			v = strings.ToLower(v)
			return !strings.Contains(v, "utf-8") && !strings.Contains(v, "utf8")
		}
	}
	return false
}

// textWidth is how wide a text report written to w may make the rows it
// would cut: w's width where w is a terminal, and no limit where it is a
// file or a pipe, read whole by tools and people's editors.
func textWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok {
		return -1
	}
	if !term.IsTerminal(f.Fd()) {
		return -1
	}
	width, _, err := term.GetSize(f.Fd())
	if err != nil || width <= 0 {
		return 0 // a terminal of unknown width: the report's 80 columns
	}
	return width
}
