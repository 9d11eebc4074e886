package main

import (
	"fmt"
	"slices"
	"strings"
)

// The shell completions gen-docs writes. Each offers the commands, each
// command's flags (after -), a flag's choices (--format, --demo's
// scenarios) and files where a flag or the command takes a file. gputop's
// flags take one dash or two, and a value after = or a space, as Go's flag
// package reads them; the completions offer the two-dash spelling.

// positionalFiles says a command's arguments are files: its synopsis
// names a FILE, a LOG or two recordings A B outside its brackets.
func positionalFiles(args string) bool {
	depth := 0
	var prev string
	for _, w := range strings.Fields(args) {
		bare := depth == 0 && !strings.HasPrefix(prev, "-")
		depth += strings.Count(w, "[") - strings.Count(w, "]")
		if bare && !strings.HasPrefix(w, "-") && (strings.Contains(w, "FILE") || w == "LOG" || w == "A" || w == "B") {
			return true
		}
		prev = w
	}
	return false
}

// topLevel are the words that may follow gputop: its commands but the
// live view (which is gputop alone), and help.
func topLevel(cmds []docCommand) []docCommand {
	var out []docCommand
	for _, c := range cmds {
		if c.name != "live" && !strings.Contains(c.name, " ") {
			out = append(out, c)
		}
	}
	return append(out, docCommand{name: "help", help: "a command's flags and examples"})
}

// shortUsage is a flag's usage cut to one line for a completion menu.
func shortUsage(s string) string {
	if i := strings.Index(s, "; "); i > 0 {
		s = s[:i]
	}
	if len(s) > 70 {
		s = s[:strings.LastIndex(s[:70], " ")] + "..."
	}
	return s
}

func bashCompletion(cmds []docCommand) string {
	var b strings.Builder
	b.WriteString("# bash completion for gputop(1), generated from its commands' own definitions (gputop's cmd_gen_docs.go).\n")
	b.WriteString("_gputop() {\n")
	b.WriteString("    local cword=$COMP_CWORD cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n")
	b.WriteString("    # bash splits --demo=training at the =\n")
	b.WriteString("    if [[ $cur == = ]]; then cur=; elif [[ $prev == = && $cword -gt 1 ]]; then prev=${COMP_WORDS[cword-2]}; fi\n")
	b.WriteString("    local cmd=live\n")
	b.WriteString("    if [[ $cword -gt 1 && ${COMP_WORDS[1]} != -* ]]; then\n        cmd=${COMP_WORDS[1]}\n")
	for _, c := range cmds {
		if parent, sub, ok := strings.Cut(c.name, " "); ok {
			fmt.Fprintf(&b, "        [[ $cmd == %s && $cword -gt 2 && ${COMP_WORDS[2]} == %s ]] && cmd=%q\n", parent, sub, c.name)
		}
	}
	b.WriteString("    fi\n")
	b.WriteString("    local flags files=\n    case $cmd in\n")
	for _, c := range cmds {
		var names []string
		for _, f := range c.flags {
			names = append(names, flagName(f.name))
		}
		names = append(names, "--help")
		files := ""
		if positionalFiles(c.args) {
			files = " files=1"
		}
		fmt.Fprintf(&b, "    %q) flags=%q%s ;;\n", c.name, strings.Join(names, " "), files)
	}
	b.WriteString("    help) COMPREPLY=($(compgen -W \"" + names(topLevel(cmds)) + "\" -- \"$cur\")); return ;;\n")
	b.WriteString("    *) flags= ;;\n    esac\n")
	b.WriteString("    # the value of the flag before\n    case \"$cmd:$prev\" in\n")
	for _, c := range cmds {
		for _, f := range c.flags {
			for _, spelling := range []string{"-" + f.name, "--" + f.name} {
				switch {
				case len(f.values) > 0:
					fmt.Fprintf(&b, "    %q) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", c.name+":"+spelling, strings.Join(f.values, " "))
				case f.file:
					fmt.Fprintf(&b, "    %q) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", c.name+":"+spelling)
				case f.arg != "":
					fmt.Fprintf(&b, "    %q) return ;;\n", c.name+":"+spelling)
				}
			}
		}
	}
	b.WriteString("    esac\n")
	b.WriteString("    if [[ $cur == -* ]]; then\n        COMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))\n")
	b.WriteString("    elif [[ $cword -eq 1 ]]; then\n        COMPREPLY=($(compgen -W \"" + names(topLevel(cmds)) + "\" -- \"$cur\"))\n")
	b.WriteString("    elif [[ $cmd == import && $cword -eq 2 ]]; then\n        COMPREPLY=($(compgen -W prometheus -- \"$cur\") $(compgen -f -- \"$cur\"))\n")
	b.WriteString("    elif [[ -n $files ]]; then\n        COMPREPLY=($(compgen -f -- \"$cur\"))\n    fi\n")
	b.WriteString("}\ncomplete -o filenames -F _gputop gputop\n")
	return b.String()
}

// names are the commands' names, space-separated.
func names(cmds []docCommand) string {
	var out []string
	for _, c := range cmds {
		out = append(out, c.name)
	}
	return strings.Join(out, " ")
}

func zshCompletion(cmds []docCommand) string {
	var b strings.Builder
	b.WriteString("#compdef gputop\n# zsh completion for gputop(1), generated from its commands' own definitions (gputop's cmd_gen_docs.go).\n\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "_gputop_%s() {\n    _arguments -s \\\n", strings.ReplaceAll(c.name, " ", "_"))
		for _, f := range c.flags {
			desc := zshEscape(shortUsage(f.usage))
			name := flagName(f.name)
			switch {
			case f.optional:
				fmt.Fprintf(&b, "        '%s=-[%s]::%s:(%s)' \\\n", name, desc, f.arg, strings.Join(f.values, " "))
			case len(f.values) > 0:
				fmt.Fprintf(&b, "        '%s=[%s]:%s:(%s)' \\\n", name, desc, f.arg, strings.Join(f.values, " "))
			case f.file:
				fmt.Fprintf(&b, "        '%s=[%s]:%s:_files' \\\n", name, desc, f.arg)
			case f.arg != "":
				fmt.Fprintf(&b, "        '%s=[%s]:%s: ' \\\n", name, desc, f.arg)
			default:
				fmt.Fprintf(&b, "        '%s[%s]' \\\n", name, desc)
			}
		}
		b.WriteString("        '(-h --help)'{-h,--help}'[this help]'")
		switch {
		case c.name == "import":
			b.WriteString(" \\\n        '1:LOG or prometheus:{_alternative \"sub:sub-command:(prometheus)\" \"files:log:_files\"}'")
		case positionalFiles(c.args):
			b.WriteString(" \\\n        '*:file:_files'")
		}
		b.WriteString("\n}\n\n")
	}
	b.WriteString("_gputop() {\n    local -a cmds\n    cmds=(\n")
	for _, c := range topLevel(cmds) {
		fmt.Fprintf(&b, "        '%s:%s'\n", c.name, zshEscape(shortUsage(c.help)))
	}
	b.WriteString("    )\n")
	b.WriteString("    if (( CURRENT == 2 )) && [[ $PREFIX != -* ]]; then\n        _describe command cmds\n        return\n    fi\n")
	b.WriteString("    local cmd=live\n    if (( CURRENT > 2 )) && [[ $words[2] != -* ]]; then\n        cmd=$words[2]\n")
	for _, c := range cmds {
		if parent, sub, ok := strings.Cut(c.name, " "); ok {
			fmt.Fprintf(&b, "        if [[ $cmd == %s && $words[3] == %s ]] && (( CURRENT > 3 )); then\n            cmd=%s; shift words; (( CURRENT-- ))\n        fi\n",
				parent, sub, strings.ReplaceAll(c.name, " ", "_"))
		}
	}
	b.WriteString("        shift words; (( CURRENT-- ))\n    fi\n")
	b.WriteString("    case $cmd in\n")
	for _, c := range cmds {
		n := strings.ReplaceAll(c.name, " ", "_")
		fmt.Fprintf(&b, "        %s) _gputop_%s ;;\n", n, n)
	}
	b.WriteString("        help) _describe command cmds ;;\n    esac\n}\n\n_gputop \"$@\"\n")
	return b.String()
}

// zshEscape makes s fit in a single-quoted _arguments description.
func zshEscape(s string) string {
	return strings.NewReplacer("'", `'\''`, "[", `\[`, "]", `\]`, ":", `\:`).Replace(s)
}

func fishCompletion(cmds []docCommand) string {
	var b strings.Builder
	b.WriteString("# fish completion for gputop(1), generated from its commands' own definitions (gputop's cmd_gen_docs.go).\n")
	top := topLevel(cmds)
	all := names(top)
	fmt.Fprintf(&b, "complete -c gputop -n 'not __fish_seen_subcommand_from %s' -f\n", all)
	for _, c := range top {
		fmt.Fprintf(&b, "complete -c gputop -n 'not __fish_seen_subcommand_from %s' -a %s -d %s\n", all, c.name, fishQuote(shortUsage(c.help)))
	}
	fmt.Fprintf(&b, "complete -c gputop -n '__fish_seen_subcommand_from help' -f -a %s\n", fishQuote(all))
	for _, c := range cmds {
		var cond string
		parent, sub, isSub := strings.Cut(c.name, " ")
		hasSub := slices.ContainsFunc(cmds, func(d docCommand) bool { return strings.HasPrefix(d.name, c.name+" ") })
		switch {
		case c.name == "live":
			cond = "not __fish_seen_subcommand_from " + all
		case isSub:
			cond = fmt.Sprintf("__fish_seen_subcommand_from %s; and __fish_seen_subcommand_from %s", parent, sub)
		case hasSub:
			cond = fmt.Sprintf("__fish_seen_subcommand_from %s; and not __fish_seen_subcommand_from %s", c.name, strings.ReplaceAll(strings.Join(subNames(cmds, c.name), " "), c.name+" ", ""))
		default:
			cond = "__fish_seen_subcommand_from " + c.name
		}
		if hasSub {
			fmt.Fprintf(&b, "complete -c gputop -n %s -a %s\n", fishQuote(cond), fishQuote(strings.ReplaceAll(strings.Join(subNames(cmds, c.name), " "), c.name+" ", "")))
		}
		if !positionalFiles(c.args) && c.name != "live" {
			fmt.Fprintf(&b, "complete -c gputop -n %s -f\n", fishQuote(cond))
		}
		for _, f := range c.flags {
			opt := "-l " + f.name
			if len(f.name) == 1 {
				opt = "-s " + f.name
			}
			switch {
			case len(f.values) > 0 && !f.optional:
				opt += " -x -a " + fishQuote(strings.Join(f.values, " "))
			case len(f.values) > 0:
				opt += " -f -a " + fishQuote(strings.Join(f.values, " "))
			case f.file:
				opt += " -r -F"
			case f.arg != "":
				opt += " -x"
			}
			fmt.Fprintf(&b, "complete -c gputop -n %s %s -d %s\n", fishQuote(cond), opt, fishQuote(shortUsage(f.usage)))
		}
	}
	return b.String()
}

// subNames are the sub-commands of parent, by their whole names.
func subNames(cmds []docCommand, parent string) []string {
	var out []string
	for _, c := range cmds {
		if strings.HasPrefix(c.name, parent+" ") {
			out = append(out, c.name)
		}
	}
	return out
}

// fishQuote is s in fish's single quotes.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}
