package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/probes/demo"
)

// gputop gen-docs writes the man page and the bash, zsh and fish
// completions that the release packages install, from the commands' own
// definitions: the command table (name, synopsis, help, examples) and the
// flag set each command answers --help with. So a flag added to a command
// is in its man page and completions without another edit, and
// TestGeneratedDocsCoverEveryFlag holds that. (Moving the commands onto a
// command library such as cobra, whose generators would do this, is left
// for a round in which nobody else is editing cmd_*.go.)

// genDocsFiles are the files gen-docs writes, by what they are.
var genDocsFiles = struct{ man, bash, zsh, fish string }{"gputop.1", "gputop.bash", "_gputop", "gputop.fish"}

func cmdGenDocs(args []string, e *env) error {
	fs := flag.NewFlagSet("gen-docs", flag.ContinueOnError)
	ver := fs.String("version", version, "the `VERSION` the man page names")
	date := fs.String("date", "", "the man page's date, a `TIME` in RFC 3339 (the release's commit date, so that a rebuild is the same bytes)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usageError{"gen-docs: give the one DIR to write into"}
	}
	day := ""
	if *date != "" {
		t, err := time.Parse(time.RFC3339, *date)
		if err != nil {
			return usageError{fmt.Sprintf("--date %q is not a time in RFC 3339", *date)}
		}
		day = t.UTC().Format("2006-01-02")
	}
	cmds, err := docCommands()
	if err != nil {
		return err
	}
	dir := rest[0]
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, text := range map[string]string{
		genDocsFiles.man:  manPage(cmds, *ver, day),
		genDocsFiles.bash: bashCompletion(cmds),
		genDocsFiles.zsh:  zshCompletion(cmds),
		genDocsFiles.fish: fishCompletion(cmds),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stdout, "wrote %s, %s, %s and %s to %s\n", genDocsFiles.man, genDocsFiles.bash, genDocsFiles.zsh, genDocsFiles.fish, dir)
	return nil
}

// docCommand is one command (or sub-command: import prometheus) as the
// man page and the completions describe it.
type docCommand struct {
	name     string // live, report, import prometheus
	args     string // the synopsis after the name (of this alternative alone for a sub-command)
	help     string
	examples []string
	flags    []docFlag
}

// docFlag is a flag with the values a shell may offer for it.
type docFlag struct {
	flagDoc
	// values are the flag's choices, from the synopsis
	// (--format text|markdown|json) or the demo's scenarios.
	values []string
	// file says the value is a path (its placeholder is FILE).
	file bool
}

// choice is a flag followed by its choices in a synopsis:
// "--format csv|jsonl", "--fail-on warning\|critical".
var choice = regexp.MustCompile(`(-{1,2}[A-Za-z0-9.-]+) ([a-z0-9][a-z0-9-]*(?:\\?\|[a-z0-9][a-z0-9-]*)+)`)

// subCommand is a sub-command in a synopsis: the lowercase word that
// starts an alternative ("LOG -o FILE | prometheus URL...").
var subCommand = regexp.MustCompile(`^[a-z][a-z-]*$`)

// docCommands reads every command users see, with the flags each one
// answers --help with: the flag sets are made inside the commands, so the
// only way to them that needs no change to a command is to ask for its
// help, as a user does (no command does anything else on --help).
func docCommands() ([]docCommand, error) {
	var out []docCommand
	for i := range commands {
		c := &commands[i]
		alts := strings.Split(c.args, " | ")
		base := docCommand{name: c.name, args: c.args, help: c.help, examples: c.examples}
		var subs []docCommand
		for _, alt := range alts[1:] {
			word, rest, _ := strings.Cut(alt, " ")
			if !subCommand.MatchString(word) {
				continue
			}
			base.args = strings.TrimSuffix(base.args, " | "+alt)
			sub := docCommand{name: c.name + " " + word, args: rest, help: c.help}
			for _, ex := range c.examples {
				if strings.HasPrefix(ex, "gputop "+sub.name+" ") {
					sub.examples = append(sub.examples, ex)
				}
			}
			subs = append(subs, sub)
		}
		if len(subs) > 0 {
			var own []string
			for _, ex := range base.examples {
				if !strings.HasPrefix(ex, "gputop "+subs[0].name+" ") {
					own = append(own, ex)
				}
			}
			base.examples = own
		}
		for _, d := range append([]docCommand{base}, subs...) {
			argv := []string{"--help"}
			if _, word, ok := strings.Cut(d.name, " "); ok {
				argv = []string{word, "--help"}
			}
			var help helpRequest
			quiet := &env{stdout: io.Discard, stderr: io.Discard}
			if err := c.run(argv, quiet); !errors.As(err, &help) {
				return nil, fmt.Errorf("gputop %s --help did not answer with its flags: %v", d.name, err)
			}
			d.flags = docFlags(flagDocs(help.flags), d.args)
			out = append(out, d)
		}
	}
	return out, nil
}

// docFlags adds to each flag its choices, as args (the synopsis) lists them.
func docFlags(flags []flagDoc, args string) []docFlag {
	choices := map[string][]string{}
	for _, m := range choice.FindAllStringSubmatch(args, -1) {
		choices[strings.TrimLeft(m[1], "-")] = strings.Split(strings.ReplaceAll(m[2], `\|`, "|"), "|")
	}
	var out []docFlag
	for _, f := range flags {
		d := docFlag{flagDoc: f, values: choices[f.name], file: f.arg == "FILE"}
		if f.name == "demo" {
			d.values = demo.Scenarios
		}
		out = append(out, d)
	}
	return out
}
