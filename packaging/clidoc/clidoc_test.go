package clidoc

import (
	"slices"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// TestExpand: a synopsis's " | word ..." is a sub-command with its own
// flags and examples, and "--flag a|b" gives the flag its choices.
func TestExpand(t *testing.T) {
	flags := func(sub string) (*pflag.FlagSet, error) {
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		fs.String("format", "auto", "the log's `FORMAT`")
		fs.String("o", "", "write to `FILE`")
		if sub == "remote" {
			fs.Duration("step", 15*time.Second, "the step")
		}
		return fs, nil
	}
	p := Page{Program: "tool", Commands: []Command{{Name: "import", Args: "LOG -o FILE [--format auto|csv] | remote URL [--step 15s]",
		Help: "import", Examples: []string{"tool import a.log -o a", "tool import remote http://x -o b"}, FlagSet: flags}}}
	cmds, err := p.expand(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) != 2 || cmds[0].name != "import" || cmds[1].name != "import remote" {
		t.Fatalf("commands %+v", cmds)
	}
	if cmds[0].args != "LOG -o FILE [--format auto|csv]" || cmds[1].args != "URL [--step 15s]" {
		t.Errorf("synopses %q and %q", cmds[0].args, cmds[1].args)
	}
	if !slices.Equal(cmds[0].examples, []string{"tool import a.log -o a"}) || !slices.Equal(cmds[1].examples, []string{"tool import remote http://x -o b"}) {
		t.Errorf("examples %q and %q", cmds[0].examples, cmds[1].examples)
	}
	format, o := cmds[0].flags[0], cmds[0].flags[1]
	if !slices.Equal(format.Values, []string{"auto", "csv"}) || format.Usage != "the log's FORMAT (default auto)" || !o.File {
		t.Errorf("flags %+v", cmds[0].flags)
	}
	if len(cmds[1].flags) != 3 || cmds[1].flags[2].Synopsis() != "--step DURATION" {
		t.Errorf("the sub-command's flags %+v", cmds[1].flags)
	}
}

// TestRoffText: a dash is \-, a backslash \e, and a leading dot or quote
// cannot start a request.
func TestRoffText(t *testing.T) {
	for in, want := range map[string]string{
		"--demo":     `\-\-demo`,
		`a\b`:        `a\eb`,
		".gtr files": `\&.gtr files`,
		"'quoted'":   `\&'quoted'`,
	} {
		if got := roffText(in); got != want {
			t.Errorf("roffText(%q) = %q, want %q", in, got, want)
		}
	}
}
