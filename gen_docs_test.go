package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gputop-dev/gputop/packaging/clidoc"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// helpFlag is a flag's line in a command's --help: "  --format FORMAT ...".
var helpFlag = regexp.MustCompile(`(?m)^  (-{1,2}[A-Za-z0-9.-]+)`)

// TestGeneratedDocsCoverEveryFlag: the man page that gen-docs writes for
// the packages names every command a user sees and every flag that the
// command's --help lists (read from the help text, not from the
// generator's own walk), and none of the hidden commands; the bash, zsh and
// fish completions are cobra's, which ask gputop itself (__complete), and
// it offers every command and every such flag; the bash completion parses.
func TestGeneratedDocsCoverEveryFlag(t *testing.T) {
	dir := t.TempDir()
	te := newTestEnv()
	if code := run([]string{"gen-docs", "--version", "9.9.9", "--date", "2026-11-29T10:00:00Z", dir}, &te.env); code != 0 {
		t.Fatalf("gen-docs: exit %d: %s", code, te.err.String())
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	manFile, bashFile, zshFile, fishFile := clidoc.Files("gputop")
	man := read(manFile)
	if !strings.HasPrefix(man, `.TH GPUTOP 1 "2026\-11\-29" "gputop 9.9.9"`) {
		t.Errorf("the man page's title line is not dated and versioned:\n%s", strings.SplitN(man, "\n", 2)[0])
	}
	for _, f := range []string{bashFile, zshFile, fishFile} {
		if !strings.Contains(read(f), "__complete") {
			t.Errorf("%s is not a completion that asks gputop __complete", f)
		}
	}
	commandWords := completions(t, "")

	type invocation struct{ name, sub string }
	var all []invocation
	for _, c := range commandNames(false) {
		all = append(all, invocation{c, ""})
	}
	all = append(all, invocation{"import", "prometheus"})
	for _, inv := range all {
		args := []string{inv.name, "--help"}
		name := inv.name
		if inv.sub != "" {
			args = []string{inv.name, inv.sub, "--help"}
			name += " " + inv.sub
		}
		h := newTestEnv()
		if code := run(args, &h.env); code != 0 {
			t.Fatalf("gputop %s --help: exit %d", name, code)
		}
		_, flagsPart, _ := strings.Cut(h.out.String(), "\nFlags:\n")
		flagsPart, _, _ = strings.Cut(flagsPart, "\nExamples:\n")
		if inv.name != "live" && !strings.Contains(man, ".SS \"gputop "+name+" ") && !strings.Contains(man, ".SS \"gputop "+name+"\"") {
			t.Errorf("the man page has no section for gputop %s", name)
		}
		switch {
		case inv.sub != "" && !slices.Contains(completions(t, inv.name, ""), inv.sub):
			t.Errorf("the completion does not offer gputop %s", name)
		case inv.sub == "" && inv.name != "live" && !slices.Contains(commandWords, inv.name):
			t.Errorf("the completion does not offer %s", name)
		}
		words := strings.Fields(name)
		if inv.name == "live" {
			words = nil // gputop -<TAB>: the live view's flags
		}
		offered := completions(t, append(words, "-")...)
		for _, m := range helpFlag.FindAllStringSubmatch(flagsPart, -1) {
			flag := m[1]
			if flag == "-h" {
				continue
			}
			flag = flagName(strings.TrimLeft(flag, "-")) // the help's spelling
			if !strings.Contains(man, strings.ReplaceAll(flag, "-", `\-`)) {
				t.Errorf("the man page does not describe gputop %s %s", name, flag)
			}
			section := manSection(man, name)
			if !strings.Contains(section, ".B \""+strings.ReplaceAll(flag, "-", `\-`)) {
				t.Errorf("gputop %s's section of the man page does not list %s", name, flag)
			}
			if !slices.Contains(offered, flag) {
				t.Errorf("the completion does not offer %s to gputop %s: %q", flag, name, offered)
			}
		}
	}
	for _, c := range commandNames(true) {
		if strings.Contains(man, c) || slices.Contains(commandWords, c) {
			t.Errorf("the man page or the completion names the hidden command %s", c)
		}
	}
	if out, err := exec.Command("bash", "-n", filepath.Join(dir, bashFile)).CombinedOutput(); err != nil {
		t.Errorf("bash -n: %v\n%s", err, out)
	}
}

// completions are what gputop __complete offers a shell for the words
// after gputop, the last one being completed.
func completions(t *testing.T, words ...string) []string {
	t.Helper()
	te := newTestEnv()
	if code := run(append([]string{"__complete"}, words...), &te.env); code != 0 {
		t.Fatalf("gputop __complete %q: exit %d: %s", words, code, te.err.String())
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(te.out.String()), "\n") {
		if word, _, _ := strings.Cut(line, "\t"); !strings.HasPrefix(word, ":") {
			out = append(out, word) // not the last line, ":DIRECTIVE"
		}
	}
	return out
}

// manSection is the man page's section for the command name, up to the next.
func manSection(man, name string) string {
	head := ".SS \"gputop " + name
	if name == "live" {
		head = ".SS \"gputop [live]"
	}
	_, s, _ := strings.Cut(man, head)
	s, _, _ = strings.Cut(s, "\n.SS ")
	return s
}

// bashCompletion is bash-completion's loader, which every distribution's
// bash sources and cobra's bash completion builds on.
const bashCompletion = "/usr/share/bash-completion/bash_completion"

// TestBashCompletionAnswers drives the bash completion as bash does on
// TAB, with the built gputop on PATH to answer it: the commands, a
// command's flags, a flag's choices.
func TestBashCompletionAnswers(t *testing.T) {
	if _, err := os.Stat(bashCompletion); err != nil {
		timelinetest.Unavailable(t, "no bash-completion (%v)", err)
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	te := newTestEnv()
	if code := run([]string{"gen-docs", dir}, &te.env); code != 0 {
		t.Fatalf("gen-docs: exit %d: %s", code, te.err.String())
	}
	_, bashFile, _, _ := clidoc.Files("gputop")
	script := filepath.Join(dir, bashFile)
	for _, c := range []struct {
		line  string   // as typed
		words []string // as bash splits it (at = too)
		want  []string
	}{
		{"gputop rep", []string{"gputop", "rep"}, []string{"replay", "report"}},
		{"gputop report run.gtr --fo", []string{"gputop", "report", "run.gtr", "--fo"}, []string{"--force", "--format"}},
		{"gputop report --format m", []string{"gputop", "report", "--format", "m"}, []string{"markdown"}},
		{"gputop --demo=th", []string{"gputop", "--demo", "=", "th"}, []string{"throttle"}},
		{"gputop import prometheus --ma", []string{"gputop", "import", "prometheus", "--ma"}, []string{"--match"}},
		{"gputop help sn", []string{"gputop", "help", "sn"}, []string{"snapshot"}},
	} {
		// compopt answers only inside a completion bash itself started.
		prog := `source ` + bashCompletion + `; source "$1"; shift; compopt() { :; }; COMP_LINE=$1; shift
			COMP_POINT=${#COMP_LINE}; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); __start_gputop; printf '%s\n' "${COMPREPLY[@]}"`
		cmd := exec.Command("bash", append([]string{"-c", prog, "bash", script, c.line}, c.words...)...)
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.line, err, out)
		}
		if got := strings.Fields(string(out)); strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s<TAB>: %q, want %q", c.line, got, c.want)
		}
	}
}
