package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gputop-dev/gputop/packaging/clidoc"
)

// helpFlag is a flag's line in a command's --help: "  --format FORMAT ...".
var helpFlag = regexp.MustCompile(`(?m)^  (-{1,2}[A-Za-z0-9.-]+)`)

// TestGeneratedDocsCoverEveryFlag: the man page and the bash, zsh and fish
// completions that gen-docs writes for the packages name every command a
// user sees and every flag that the command's --help lists (read from the
// help text, not from the generator's own walk), and none of the hidden
// commands; the bash completion parses.
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
	man, bash, zsh, fish := read(manFile), read(bashFile), read(zshFile), read(fishFile)
	if !strings.HasPrefix(man, `.TH GPUTOP 1 "2026\-11\-29" "gputop 9.9.9"`) {
		t.Errorf("the man page's title line is not dated and versioned:\n%s", strings.SplitN(man, "\n", 2)[0])
	}

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
		word := inv.name
		if inv.sub != "" {
			word = inv.sub
		}
		if inv.name != "live" && (!strings.Contains(bash, word) || !strings.Contains(zsh, word) || !strings.Contains(fish, word)) {
			t.Errorf("a completion does not offer %s", word)
		}
		for _, m := range helpFlag.FindAllStringSubmatch(flagsPart, -1) {
			flag := m[1]
			if flag == "-h" {
				continue
			}
			bare := strings.TrimLeft(flag, "-")
			flag = flagName(bare) // the completions offer the help's spelling
			if !strings.Contains(man, strings.ReplaceAll(flag, "-", `\-`)) {
				t.Errorf("the man page does not describe gputop %s %s", name, flag)
			}
			section := manSection(man, name)
			if !strings.Contains(section, ".B \""+strings.ReplaceAll(flag, "-", `\-`)) {
				t.Errorf("gputop %s's section of the man page does not list %s", name, flag)
			}
			if !regexp.MustCompile(`"` + regexp.QuoteMeta(name) + `"\) flags="([^"]* )?` + regexp.QuoteMeta(flag) + `[ "]`).MatchString(bash) {
				t.Errorf("the bash completion does not offer %s to gputop %s", flag, name)
			}
			fn := "_gputop_" + strings.ReplaceAll(name, " ", "_") + "() {"
			_, body, _ := strings.Cut(zsh, fn)
			body, _, _ = strings.Cut(body, "\n}\n")
			if !strings.Contains(body, "'"+flag) {
				t.Errorf("the zsh completion does not offer %s to gputop %s", flag, name)
			}
			opt := "-l " + bare
			if len(bare) == 1 {
				opt = "-s " + bare
			}
			if !strings.Contains(fish, opt+" ") {
				t.Errorf("the fish completion does not offer %s", flag)
			}
		}
	}
	for _, c := range commandNames(true) {
		for file, text := range map[string]string{"man": man, "bash": bash, "zsh": zsh, "fish": fish} {
			if strings.Contains(text, c) {
				t.Errorf("the %s completion or page names the hidden command %s", file, c)
			}
		}
	}
	if out, err := exec.Command("bash", "-n", filepath.Join(dir, bashFile)).CombinedOutput(); err != nil {
		t.Errorf("bash -n: %v\n%s", err, out)
	}
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

// TestBashCompletionAnswers drives the bash completion as bash does on
// TAB: the commands, a command's flags, a flag's choices.
func TestBashCompletionAnswers(t *testing.T) {
	dir := t.TempDir()
	te := newTestEnv()
	if code := run([]string{"gen-docs", dir}, &te.env); code != 0 {
		t.Fatalf("gen-docs: exit %d: %s", code, te.err.String())
	}
	_, bashFile, _, _ := clidoc.Files("gputop")
	script := filepath.Join(dir, bashFile)
	for _, c := range []struct {
		line []string
		want []string
	}{
		{[]string{"gputop", "rep"}, []string{"replay", "report"}},
		{[]string{"gputop", "report", "run.gtr", "--fo"}, []string{"--force", "--format"}},
		{[]string{"gputop", "report", "--format", "m"}, []string{"markdown"}},
		{[]string{"gputop", "--demo", "=", "th"}, []string{"throttle"}},
		{[]string{"gputop", "import", "prometheus", "--ma"}, []string{"--match"}},
		{[]string{"gputop", "help", "sn"}, []string{"snapshot"}},
	} {
		words := strings.Join(c.line, " ")
		prog := `source "$1"; COMP_WORDS=(` + words + `); COMP_CWORD=` + strconv.Itoa(len(c.line)-1) +
			`; _gputop; printf '%s\n' "${COMPREPLY[@]}"`
		out, err := exec.Command("bash", "-c", prog, "bash", script).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", words, err, out)
		}
		if got := strings.Fields(string(out)); strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s<TAB>: %q, want %q", words, got, c.want)
		}
	}
}
