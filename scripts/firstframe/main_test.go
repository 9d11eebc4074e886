//go:build linux

package main

import (
	"strings"
	"testing"
	"time"
)

func TestMeasureFindsTheTextAfterTheTerminalsAnswer(t *testing.T) {
	// The program asks where the cursor is and draws only once answered,
	// as a terminal UI waiting on its terminal does; then it waits for its q.
	script := `stty raw -echo; printf '\033[6n'; head -c 6 >/dev/null; sleep 0.2; printf 'GPU7\r\n'; head -c 1 >/dev/null`
	took, err := measure([]string{"sh", "-c", script}, 80, 24, "GPU7", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if took < 200*time.Millisecond {
		t.Errorf("first frame after %v, before the 0.2 s the program waited once answered", took)
	}
}

func TestMeasureSaysWhenTheTextNeverCame(t *testing.T) {
	for _, tc := range []struct {
		script, want string
	}{
		{"printf other", "ended its output without writing"},
		{"stty raw -echo; head -c 1 >/dev/null", "did not write"}, // until its q
	} {
		_, err := measure([]string{"sh", "-c", tc.script}, 80, 24, "GPU7", time.Second)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.script, err, tc.want)
		}
	}
}
