package clidoc

import (
	"fmt"
	"strings"
)

// The shell completions. Each offers the commands, each command's flags
// (after a dash), a flag's choices (--format, --demo's scenarios) and
// files where a flag or the command takes a file. Go's flag package reads
// one dash or two and a value after = or a space; the completions offer
// the spelling the help shows.

// topLevel are the words that may follow the program: its commands but
// the default one (the program alone runs it), and help.
func (p Page) topLevel(cmds []command) []command {
	var out []command
	for _, c := range cmds {
		if c.name != p.Default && !strings.Contains(c.name, " ") {
			out = append(out, c)
		}
	}
	return append(out, command{name: "help", help: "a command's flags and examples"})
}

// names are the commands' names, space-separated.
func names(cmds []command) string {
	var out []string
	for _, c := range cmds {
		out = append(out, c.name)
	}
	return strings.Join(out, " ")
}

// subs are the sub-commands of parent, by the word that names each.
func subs(cmds []command, parent string) []string {
	var out []string
	for _, c := range cmds {
		if p, sub, ok := strings.Cut(c.name, " "); ok && p == parent {
			out = append(out, sub)
		}
	}
	return out
}

// short is a usage cut to one line for a completion menu.
func short(s string) string {
	if i := strings.Index(s, "; "); i > 0 {
		s = s[:i]
	}
	if len(s) > 70 {
		s = s[:strings.LastIndex(s[:70], " ")] + "..."
	}
	return s
}

// header is the completions' first line.
func (p Page) header(shell string) string {
	return fmt.Sprintf("# %s completion for %s(1), generated from its commands' own definitions: do not edit.\n", shell, p.Program)
}

func (p Page) bash(cmds []command) string {
	var b strings.Builder
	fn := "_" + p.Program
	b.WriteString(p.header("bash"))
	fmt.Fprintf(&b, "%s() {\n", fn)
	b.WriteString("    local cword=$COMP_CWORD cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n")
	b.WriteString("    # bash splits --demo=training at the =\n")
	b.WriteString("    if [[ $cur == = ]]; then cur=; elif [[ $prev == = && $cword -gt 1 ]]; then prev=${COMP_WORDS[cword-2]}; fi\n")
	fmt.Fprintf(&b, "    local cmd=%s\n", p.Default)
	b.WriteString("    if [[ $cword -gt 1 && ${COMP_WORDS[1]} != -* ]]; then\n        cmd=${COMP_WORDS[1]}\n")
	for _, c := range cmds {
		if parent, sub, ok := strings.Cut(c.name, " "); ok {
			fmt.Fprintf(&b, "        [[ $cmd == %s && $cword -gt 2 && ${COMP_WORDS[2]} == %s ]] && cmd=%q\n", parent, sub, c.name)
		}
	}
	b.WriteString("    fi\n    local flags files=\n    case $cmd in\n")
	for _, c := range cmds {
		var fl []string
		for _, f := range c.flags {
			fl = append(fl, Name(f.Name))
		}
		files := ""
		if positionalFiles(c.args) {
			files = " files=1"
		}
		fmt.Fprintf(&b, "    %q) flags=%q%s ;;\n", c.name, strings.Join(append(fl, "--help"), " "), files)
	}
	top := names(p.topLevel(cmds))
	fmt.Fprintf(&b, "    help) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", top)
	b.WriteString("    esac\n    # the value of the flag before\n    case \"$cmd:$prev\" in\n")
	for _, c := range cmds {
		for _, f := range c.flags {
			for _, spelling := range []string{"-" + f.Name, "--" + f.Name} {
				key := c.name + ":" + spelling
				switch {
				case len(f.Values) > 0:
					fmt.Fprintf(&b, "    %q) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", key, strings.Join(f.Values, " "))
				case f.File:
					fmt.Fprintf(&b, "    %q) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", key)
				case f.Arg != "":
					fmt.Fprintf(&b, "    %q) return ;;\n", key)
				}
			}
		}
	}
	b.WriteString("    esac\n")
	b.WriteString("    if [[ $cur == -* ]]; then\n        COMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))\n")
	fmt.Fprintf(&b, "    elif [[ $cword -eq 1 ]]; then\n        COMPREPLY=($(compgen -W %q -- \"$cur\"))\n", top)
	for _, c := range cmds {
		if s := subs(cmds, c.name); len(s) > 0 {
			fmt.Fprintf(&b, "    elif [[ $cmd == %s && $cword -eq 2 ]]; then\n        COMPREPLY=($(compgen -W %q -- \"$cur\") $(compgen -f -- \"$cur\"))\n",
				c.name, strings.Join(s, " "))
		}
	}
	b.WriteString("    elif [[ -n $files ]]; then\n        COMPREPLY=($(compgen -f -- \"$cur\"))\n    fi\n}\n")
	fmt.Fprintf(&b, "complete -o filenames -F %s %s\n", fn, p.Program)
	return b.String()
}

func (p Page) zsh(cmds []command) string {
	var b strings.Builder
	fn := "_" + p.Program
	fmt.Fprintf(&b, "#compdef %s\n%s\n", p.Program, p.header("zsh"))
	for _, c := range cmds {
		fmt.Fprintf(&b, "%s_%s() {\n    _arguments -s \\\n", fn, strings.ReplaceAll(c.name, " ", "_"))
		for _, f := range c.flags {
			desc, name := zshEscape(short(f.Usage)), Name(f.Name)
			switch {
			case f.Optional:
				fmt.Fprintf(&b, "        '%s=-[%s]::%s:(%s)' \\\n", name, desc, f.Arg, strings.Join(f.Values, " "))
			case len(f.Values) > 0:
				fmt.Fprintf(&b, "        '%s=[%s]:%s:(%s)' \\\n", name, desc, f.Arg, strings.Join(f.Values, " "))
			case f.File:
				fmt.Fprintf(&b, "        '%s=[%s]:%s:_files' \\\n", name, desc, f.Arg)
			case f.Arg != "":
				fmt.Fprintf(&b, "        '%s=[%s]:%s: ' \\\n", name, desc, f.Arg)
			default:
				fmt.Fprintf(&b, "        '%s[%s]' \\\n", name, desc)
			}
		}
		b.WriteString("        '(-h --help)'{-h,--help}'[this help]'")
		switch s := subs(cmds, c.name); {
		case len(s) > 0:
			fmt.Fprintf(&b, " \\\n        '1:sub-command or file:{_alternative \"sub:sub-command:(%s)\" \"files:file:_files\"}'", strings.Join(s, " "))
		case positionalFiles(c.args):
			b.WriteString(" \\\n        '*:file:_files'")
		}
		b.WriteString("\n}\n\n")
	}
	fmt.Fprintf(&b, "%s() {\n    local -a cmds\n    cmds=(\n", fn)
	for _, c := range p.topLevel(cmds) {
		fmt.Fprintf(&b, "        '%s:%s'\n", c.name, zshEscape(short(c.help)))
	}
	b.WriteString("    )\n    if (( CURRENT == 2 )) && [[ $PREFIX != -* ]]; then\n        _describe command cmds\n        return\n    fi\n")
	fmt.Fprintf(&b, "    local cmd=%s\n    if (( CURRENT > 2 )) && [[ $words[2] != -* ]]; then\n        cmd=$words[2]\n        shift words; (( CURRENT-- ))\n", p.Default)
	for _, c := range cmds {
		if parent, sub, ok := strings.Cut(c.name, " "); ok {
			fmt.Fprintf(&b, "        if [[ $cmd == %s && $words[2] == %s ]] && (( CURRENT > 2 )); then\n            cmd=%s_%s; shift words; (( CURRENT-- ))\n        fi\n",
				parent, sub, parent, sub)
		}
	}
	b.WriteString("    fi\n    case $cmd in\n")
	for _, c := range cmds {
		n := strings.ReplaceAll(c.name, " ", "_")
		fmt.Fprintf(&b, "        %s) %s_%s ;;\n", n, fn, n)
	}
	fmt.Fprintf(&b, "        help) _describe command cmds ;;\n    esac\n}\n\n%s \"$@\"\n", fn)
	return b.String()
}

// zshEscape makes s fit in a single-quoted _arguments description.
func zshEscape(s string) string {
	return strings.NewReplacer("'", `'\''`, "[", `\[`, "]", `\]`, ":", `\:`).Replace(s)
}

func (p Page) fish(cmds []command) string {
	var b strings.Builder
	b.WriteString(p.header("fish"))
	top := p.topLevel(cmds)
	all := names(top)
	complete := "complete -c " + p.Program + " -n "
	fmt.Fprintf(&b, "%s'not __fish_seen_subcommand_from %s' -f\n", complete, all)
	for _, c := range top {
		fmt.Fprintf(&b, "%s'not __fish_seen_subcommand_from %s' -a %s -d %s\n", complete, all, c.name, fishQuote(short(c.help)))
	}
	fmt.Fprintf(&b, "%s'__fish_seen_subcommand_from help' -f -a %s\n", complete, fishQuote(all))
	for _, c := range cmds {
		cond := "__fish_seen_subcommand_from " + c.name
		parent, sub, isSub := strings.Cut(c.name, " ")
		s := subs(cmds, c.name)
		switch {
		case c.name == p.Default:
			cond = "not __fish_seen_subcommand_from " + all
		case isSub:
			cond = fmt.Sprintf("__fish_seen_subcommand_from %s; and __fish_seen_subcommand_from %s", parent, sub)
		case len(s) > 0:
			cond += "; and not __fish_seen_subcommand_from " + strings.Join(s, " ")
			fmt.Fprintf(&b, "%s%s -a %s\n", complete, fishQuote(cond), fishQuote(strings.Join(s, " ")))
		}
		if !positionalFiles(c.args) && c.name != p.Default {
			fmt.Fprintf(&b, "%s%s -f\n", complete, fishQuote(cond))
		}
		for _, f := range c.flags {
			opt := "-l " + f.Name
			if len([]rune(f.Name)) == 1 {
				opt = "-s " + f.Name
			}
			switch {
			case len(f.Values) > 0 && !f.Optional:
				opt += " -x -a " + fishQuote(strings.Join(f.Values, " "))
			case len(f.Values) > 0:
				opt += " -f -a " + fishQuote(strings.Join(f.Values, " "))
			case f.File:
				opt += " -r -F"
			case f.Arg != "":
				opt += " -x"
			}
			fmt.Fprintf(&b, "%s%s %s -d %s\n", complete, fishQuote(cond), opt, fishQuote(short(f.Usage)))
		}
	}
	return b.String()
}

// fishQuote is s in fish's single quotes.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}
