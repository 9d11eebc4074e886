package main

import "strings"

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
