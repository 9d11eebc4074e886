package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// The commands were written on Go's flag package, which reads a long flag
// after one dash (-json) and -o after two (--o); pflag reads -json as -j
// -s -o -n, so commandLine gives it its second dash. A value is left as it
// is, even one that starts with a dash, and so is all after "--".
func TestFlagsSpelledAsGoFlagReadThem(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.Bool("json", false, "")
	fs.Duration("kill-after", time.Second, "")
	fs.StringP("o", "o", "", "")
	demoVar(fs, &demoFlag{}, "")
	for _, tt := range []struct{ in, want []string }{
		{[]string{"-json", "-demo", "mig", "-o", "x"}, []string{"--json", "--demo=mig", "-o", "x"}},
		{[]string{"-kill-after", "-1s", "-o", "-x", "--o=-y", "-o=z"}, []string{"--kill-after", "-1s", "-o", "-x", "--o=-y", "-o=z"}},
		{[]string{"run.gtr", "-", "-nope", "--", "-json", "-o"}, []string{"run.gtr", "-", "--nope", "--", "-json", "-o"}},
	} {
		if got := commandLine(fs, tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("commandLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	te := newTestEnv()
	if code := run([]string{"snapshot", "-json", "-demo", "mig"}, &te.env); code != exitOK || !strings.HasPrefix(te.out.String(), "{") {
		t.Errorf("gputop snapshot -json -demo mig: exit %d, stderr %q, stdout starts %.20q", code, te.err.String(), te.out.String())
	}
}
