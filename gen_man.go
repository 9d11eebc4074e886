package main

import (
	"fmt"
	"strings"
)

// manPage is gputop(1) in man(7) macros, which man-db's groff and mandoc
// both read: every command with its synopsis, what it does, its flags and
// examples, then the exit codes. day may be empty.
func manPage(cmds []docCommand, ver, day string) string {
	var b strings.Builder
	fmt.Fprintf(&b, ".TH GPUTOP 1 %s %s \"User Commands\"\n", roffQuote(day), roffQuote("gputop "+ver))
	b.WriteString(".SH NAME\ngputop \\- a terminal GPU profiler\n")
	b.WriteString(".SH SYNOPSIS\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, ".B %s\n%s\n.br\n", roffQuote(manName(c)), roffText(c.args))
	}
	b.WriteString(".SH DESCRIPTION\n" + roffText(
		"gputop samples every NVIDIA GPU (through NVML) and the host, keeps the history, shows it live or replays "+
			"it, and names what holds the GPUs back, with the evidence in numbers and a next step. Without a "+
			"command it is the live view. Without a GPU, --demo runs the real NVML probe against a simulated "+
			"8x H100 node; its scenarios are "+scenarioNames+".") + "\n")
	b.WriteString(".SH COMMANDS\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, ".SS %s\n", roffQuote(manName(c)+" "+c.args))
		b.WriteString(roffText(strings.ToUpper(c.help[:1])+c.help[1:]+".") + "\n")
		for _, f := range c.flags {
			fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", roffQuote(f.synopsis()), roffText(f.usage))
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
	b.WriteString(".SH EXIT STATUS\n")
	for _, s := range []struct {
		code int
		what string
	}{
		{exitOK, "done"},
		{exitError, "a failure at run time: a missing or damaged file, a file that is not a recording, a newer format, a path that cannot be written"},
		{exitUsage, "a usage error: an unknown command or flag, a malformed value, the wrong arguments"},
		{exitCheck, "a check for CI failed: report or run --fail-on found a hint of that severity, diff --fail-if a condition that holds"},
	} {
		fmt.Fprintf(&b, ".TP\n.B %d\n%s\n", s.code, roffText(s.what))
	}
	b.WriteString(".PP\n" + roffText("gputop run exits with its job's code (128 + the signal that killed it; 127 and 126 where it could not be started).") + "\n")
	b.WriteString(".SH ENVIRONMENT\n.TP\n.B NO_COLOR\nwhen set, the screen has no colour\n" +
		".TP\n.B GOMAXPROCS\n" + roffText("the commands that run beside a job run Go on one processor unless this is set") + "\n")
	b.WriteString(".SH SEE ALSO\n.BR nvidia-smi (1)\n")
	return b.String()
}

// manName is how a command is typed: the live view is gputop [live].
func manName(c docCommand) string {
	if c.name == "live" {
		return "gputop [live]"
	}
	return "gputop " + c.name
}

// roffText escapes text for a roff text line: a backslash is \e, a dash
// \- (so that a flag can be copied from the page), and a line starting
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
