package main

import "testing"

func TestASCIIOnlyFollowsTheTerminalAndLocale(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{}, false},
		{map[string]string{"TERM": "xterm-256color", "LANG": "en_US.UTF-8"}, false},
		{map[string]string{"TERM": "dumb", "LANG": "en_US.UTF-8"}, true},
		{map[string]string{"LANG": "C"}, true},
		{map[string]string{"LANG": "POSIX"}, true},
		{map[string]string{"LANG": "de_DE.ISO-8859-1"}, true},
		{map[string]string{"LANG": "C.UTF-8"}, false},
		{map[string]string{"LANG": "en_GB.utf8"}, false},
		// LC_ALL and LC_CTYPE decide over LANG, as in the C library.
		{map[string]string{"LANG": "en_US.UTF-8", "LC_ALL": "C"}, true},
		{map[string]string{"LANG": "C", "LC_CTYPE": "en_US.UTF-8"}, false},
		{map[string]string{"LC_ALL": "en_US.UTF-8", "LC_CTYPE": "C"}, false},
	} {
		if got := asciiOnly(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%v: asciiOnly %v, want %v", c.env, got, c.want)
		}
	}
}
