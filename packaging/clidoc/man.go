package clidoc

import (
	"fmt"
	"strings"
)

// man is the man page in man(7) macros, which man-db's groff and mandoc
// both read: every command with its synopsis, what it does, its flags and
// examples, then the exit statuses and the environment.
func (p Page) man(cmds []command) string {
	var b strings.Builder
	fmt.Fprintf(&b, ".TH %s 1 %s %s \"User Commands\"\n", strings.ToUpper(p.Program), roffQuote(p.Date), roffQuote(p.Program+" "+p.Version))
	// No hyphenation and a ragged right: flags stay whole.
	b.WriteString(".nh\n.ad l\n")
	fmt.Fprintf(&b, ".SH NAME\n%s \\- %s\n", p.Program, roffText(p.Summary))
	b.WriteString(".SH SYNOPSIS\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, ".B %s\n%s\n.br\n", roffQuote(p.typed(c)), roffText(c.args))
	}
	b.WriteString(".SH DESCRIPTION\n" + roffText(p.Description) + "\n")
	b.WriteString(".SH COMMANDS\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, ".SS %s\n", roffQuote(strings.TrimSpace(p.typed(c)+" "+c.args)))
		b.WriteString(roffText(strings.ToUpper(c.help[:1])+c.help[1:]+".") + "\n")
		for _, f := range c.flags {
			fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", roffQuote(f.Synopsis()), roffText(f.Usage))
		}
		b.WriteString(".TP\n.B \"\\-h, \\-\\-help\"\nthis help\n")
		if len(c.examples) > 0 {
			b.WriteString(".PP\nExamples:\n.RS\n.nf\n")
			for _, ex := range c.examples {
				b.WriteString(roffText(ex) + "\n")
			}
			b.WriteString(".fi\n.RE\n")
		}
	}
	if len(p.Exits) > 0 {
		b.WriteString(".SH EXIT STATUS\n")
		for _, e := range p.Exits {
			fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", roffQuote(e[0]), roffText(e[1]))
		}
	}
	if len(p.Env) > 0 {
		b.WriteString(".SH ENVIRONMENT\n")
		for _, e := range p.Env {
			fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", e[0], roffText(e[1]))
		}
	}
	return b.String()
}

// typed is how a command is typed: the default one may go unnamed.
func (p Page) typed(c command) string {
	if c.name == p.Default {
		return p.Program + " [" + c.name + "]"
	}
	return p.Program + " " + c.name
}

// roffText escapes text for a roff text line: a backslash is \e, a dash
// \- (so that a flag copied from the page works), and a line that starts
// with a control character is kept from being read as a request.
func roffText(s string) string {
	s = strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// roffQuote is s as one quoted argument of a macro.
func roffQuote(s string) string {
	return `"` + strings.ReplaceAll(roffText(s), `"`, `\(dq`) + `"`
}
