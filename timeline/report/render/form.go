package render

import (
	"bytes"
	"fmt"
	"strings"
)

// The markdown and HTML reports share most of their sections, so each of
// those is written once, against a form: mdForm and htmlForm put its
// title, paragraphs and tables in their own markup. (The text report lays
// its sections out in 80 columns, in text.go.)

// form is where a section of the markdown or HTML report goes. The text
// it is given is written as it is: gputop's fixed words, or what own or
// esc made safe for the form.
type form interface {
	// section opens a section under its title; end closes it.
	section(title string)
	end()
	// p writes a paragraph; legend one on how to read what is above it.
	p(s string)
	legend(s string)
	// caption names the table below it.
	caption(s string)
	table(t Table)
	// own makes gputop's own words and figures safe for the form:
	// markdown takes them as they are, HTML escapes them ("<1%"). esc
	// makes outside text (a file's name) safe for either.
	own(s string) string
	esc(s string) string
}

// Table is a table of the markdown and HTML reports (and of the diff's):
// its heading, which of its columns are figures (aligned right), and its
// rows, each cell of text escaped as its form needs.
type Table struct {
	Head []string
	Num  []bool
	Rows [][]string
	// Group marks the rows that head a group of the rows below them (a
	// host's GPUs, an owner's figures): their first cell, across the table.
	Group []bool
	// escFigures has markdown escape the figures too, as the owners'
	// table always has ("\<1%").
	escFigures bool
}

// add appends a row; heading one that heads the rows after it.
func (t *Table) add(cells ...string) {
	t.Rows, t.Group = append(t.Rows, cells), append(t.Group, false)
}

func (t *Table) heading(s string) {
	t.Rows, t.Group = append(t.Rows, []string{s}), append(t.Group, true)
}

func (t Table) num(i int) bool   { return i < len(t.Num) && t.Num[i] }
func (t Table) group(i int) bool { return i < len(t.Group) && t.Group[i] }

// WriteMarkdown writes the table after a blank line: its heading and rule,
// then its rows, the text escaped (EscapeMarkdown), the figures as they
// are.
func (t Table) WriteMarkdown(b *bytes.Buffer) {
	head, rule := "|", "|"
	for i, c := range t.Head {
		if c != "" {
			head += " " + c // an empty heading is one space: "| | mean |"
		}
		head += " |"
		if t.num(i) {
			rule += "---:|"
		} else {
			rule += "---|"
		}
	}
	fmt.Fprintf(b, "\n%s\n%s\n", head, rule)
	for k, r := range t.Rows {
		if t.group(k) {
			fmt.Fprintf(b, "| **%s** |%s\n", EscapeMarkdown(r[0]), strings.Repeat(" |", len(t.Head)-1))
			continue
		}
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = c
			if !t.num(i) || t.escFigures {
				cells[i] = EscapeMarkdown(c)
			}
		}
		fmt.Fprintf(b, "| %s |\n", strings.Join(cells, " | "))
	}
}

// WriteHTML writes the table, every cell escaped (svgEsc), the figures of
// class n.
func (t Table) WriteHTML(b *bytes.Buffer) {
	cells := func(tag string, r []string) {
		for i, c := range r {
			if t.num(i) {
				fmt.Fprintf(b, `<%s class="n">%s</%s>`, tag, svgEsc(c), tag)
			} else {
				fmt.Fprintf(b, "<%s>%s</%s>", tag, svgEsc(c), tag)
			}
		}
	}
	b.WriteString("<table>\n<thead><tr>")
	cells("th", t.Head)
	b.WriteString("</tr></thead>\n<tbody>\n")
	for k, r := range t.Rows {
		if t.group(k) {
			fmt.Fprintf(b, `<tr class="group"><th colspan="%d">%s</th></tr>`+"\n", len(t.Head), svgEsc(r[0]))
			continue
		}
		b.WriteString("<tr>")
		cells("td", r)
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody></table>\n")
}

// mdForm writes the markdown report: a section's parts each after a blank
// line.
type mdForm struct{ b *bytes.Buffer }

// line writes a line of markdown.
func (m mdForm) line(format string, args ...any) { fmt.Fprintf(m.b, format+"\n", args...) }

func (m mdForm) section(title string) { m.line("\n### %s", title) }
func (m mdForm) end()                 {}
func (m mdForm) p(s string)           { m.line("\n%s", s) }
func (m mdForm) legend(s string)      { m.p(s) }
func (m mdForm) caption(s string)     { m.p(s + ":") }
func (m mdForm) table(t Table)        { t.WriteMarkdown(m.b) }
func (m mdForm) own(s string) string  { return s }
func (m mdForm) esc(s string) string  { return EscapeMarkdown(s) }

// htmlForm writes a page. Only raw and f's format strings are markup;
// every value from the report goes through svgEsc first.
type htmlForm struct{ b *bytes.Buffer }

func (h htmlForm) raw(s string)                 { h.b.WriteString(s) }
func (h htmlForm) f(format string, args ...any) { fmt.Fprintf(h.b, format, args...) }

func (h htmlForm) section(title string) { h.f("<section>\n<h2>%s</h2>\n", title) }
func (h htmlForm) end()                 { h.raw("</section>\n") }
func (h htmlForm) p(s string)           { h.f("<p>%s</p>\n", s) }
func (h htmlForm) legend(s string)      { h.f(`<p class="legend">%s</p>`+"\n", s) }
func (h htmlForm) caption(s string)     { h.f("<h3>%s</h3>\n", s) }
func (h htmlForm) table(t Table)        { t.WriteHTML(h.b) }
func (h htmlForm) own(s string) string  { return svgEsc(s) }
func (h htmlForm) esc(s string) string  { return svgEsc(s) }
