package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// What the README and docs/ promise a reader: a screenshot that is what
// gputop draws, and links that lead somewhere.

// readmeScreenshot is the golden screen the README shows: the ui tests
// draw it (TestGoldenHints), so it changes when the screen does.
const readmeScreenshot = "ui/testdata/hints_checkpoint_7m_80x24.golden"

// TestReadmeScreenshotIsTheGolden: the README's first code block is the
// golden screen it names, character for character.
func TestReadmeScreenshotIsTheGolden(t *testing.T) {
	readme := readDoc(t, "README.md")
	if !strings.Contains(readme, readmeScreenshot) {
		t.Errorf("README.md does not say its screenshot is %s", readmeScreenshot)
	}
	_, block, found := strings.Cut(readme, "\n```\n")
	block, _, closed := strings.Cut(block, "\n```\n")
	if !found || !closed {
		t.Fatal("README.md has no plain code block for its screenshot")
	}
	want := readDoc(t, readmeScreenshot)
	if block != want {
		t.Errorf("README.md's screenshot is not %s; replace the block with it:\n%s", readmeScreenshot, want)
	}
}

// quotedGolden is a doc's claim to quote a golden file in the code block
// that follows: "(from `PATH.golden`):".
var quotedGolden = regexp.MustCompile("\\(from `([^`]+\\.golden)`\\):\n\n```\n")

// TestDocsQuoteTheirGoldens: a code block that a doc says is a golden
// file is that file, so a report's example changes when the report does.
func TestDocsQuoteTheirGoldens(t *testing.T) {
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	quoted := 0
	for _, doc := range docs {
		text := readDoc(t, doc)
		for _, m := range quotedGolden.FindAllStringSubmatchIndex(text, -1) {
			quoted++
			path := text[m[2]:m[3]]
			block, _, closed := strings.Cut(text[m[1]:], "```\n")
			if !closed {
				t.Errorf("%s: the block quoting %s is not closed", doc, path)
				continue
			}
			want := readDoc(t, path)
			if !strings.HasSuffix(want, "\n") {
				want += "\n"
			}
			if block != want {
				t.Errorf("%s quotes %s, but its block differs; it should read:\n%s", doc, path, want)
			}
		}
	}
	if quoted == 0 {
		t.Error("no doc quotes a golden file: docs/report.md's text example does")
	}
}

// TestDocLinksResolve: every relative link of README.md and docs/*.md
// names a file of the repository, and every #anchor a heading of the file
// it points into, as GitHub makes anchors of headings.
func TestDocLinksResolve(t *testing.T) {
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	docs = append([]string{"README.md"}, docs...)
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, doc := range docs {
		for _, link := range markdownLinks(readDoc(t, doc)) {
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			checked++
			path, anchor, _ := strings.Cut(link, "#")
			target := doc
			if path != "" {
				target = filepath.Join(filepath.Dir(doc), path)
				abs, err := filepath.Abs(target)
				if err != nil || (abs != root && !strings.HasPrefix(abs, root+string(filepath.Separator))) {
					t.Errorf("%s links to %s, outside the repository", doc, link)
					continue
				}
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s links to %s, which does not exist", doc, link)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(target, ".md") {
				t.Errorf("%s links to %s: an anchor into a file that is not markdown", doc, link)
				continue
			}
			if anchors := headingAnchors(readDoc(t, target)); !slices.Contains(anchors, anchor) {
				t.Errorf("%s links to %s: %s has no heading with that anchor (it has %s)", doc, link, target, strings.Join(anchors, " "))
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d relative links found in README.md and docs/: the parser is broken", checked)
	}
}

// TestDocsCiteOnlyWhatUsersHave: the docs say a fact rather than cite a
// file a user of the repository does not have (the reports and notes the
// project began from, a tool beside the checkout).
func TestDocsCiteOnlyWhatUsersHave(t *testing.T) {
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range append([]string{"README.md"}, docs...) {
		text := strings.ToLower(readDoc(t, doc))
		for _, cited := range []string{"../shared/", "shared/telemetry", "product.md", "product brief", "seed report", "seed 0"} {
			if strings.Contains(text, cited) {
				t.Errorf("%s cites %q, which a user of the repository cannot open: say the fact instead", doc, cited)
			}
		}
	}
}

// TestDocAnchors pins the anchor rule on headings the docs link to.
func TestDocAnchors(t *testing.T) {
	for heading, want := range map[string]string{
		"Several hosts: `gputop --hosts`":                       "several-hosts-gputop---hosts",
		"MIG: what NVML gives, per architecture":                "mig-what-nvml-gives-per-architecture",
		"The guard of `gputop run`'s job (issue 26)":            "the-guard-of-gputop-runs-job-issue-26",
		"What only gputop knows: `gputop_*`":                    "what-only-gputop-knows-gputop_",
		"Across hosts: `host-idle`, `host-late`":                "across-hosts-host-idle-host-late",
		"1,000 hosts, on paper":                                 "1000-hosts-on-paper",
		"The [report](report.md), and *what* `gputop run` does": "the-report-and-what-gputop-run-does",
	} {
		if got := headingAnchor(heading); got != want {
			t.Errorf("anchor of %q is %q, want %q", heading, got, want)
		}
	}
	if got := headingAnchors("# A\n```sh\n# not a heading\n```\n## A\n"); !slices.Equal(got, []string{"a", "a-1"}) {
		t.Errorf("anchors %q, want a heading repeated to get -1 and a comment in code to be none", got)
	}
}

func readDoc(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var (
	// markdownLink is an inline link or image: [text](target "title").
	markdownLink = regexp.MustCompile(`\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)
	// codeSpan is inline code, whose brackets are no link.
	codeSpan = regexp.MustCompile("`+[^`]*`+")
	// headingLink is a link inside a heading, whose text is what shows.
	headingLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// markdownLines calls fn for each line of doc outside fenced code blocks.
func markdownLines(doc string, fn func(line string)) {
	fence := ""
	for line := range strings.SplitSeq(doc, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		fn(line)
	}
}

// markdownLinks is the targets of doc's links, outside code.
func markdownLinks(doc string) []string {
	var links []string
	markdownLines(doc, func(line string) {
		for _, m := range markdownLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
			links = append(links, m[1])
		}
	})
	return links
}

// headingAnchors is the anchors GitHub gives doc's headings, in order: a
// repeated one gets -1, -2, ...
func headingAnchors(doc string) []string {
	var anchors []string
	seen := map[string]int{}
	markdownLines(doc, func(line string) {
		text, ok := strings.CutPrefix(line, "#")
		if !ok {
			return
		}
		text = strings.TrimLeft(text, "#")
		if text != "" && text[0] != ' ' {
			return
		}
		a := headingAnchor(strings.TrimSpace(text))
		if n := seen[a]; n > 0 {
			anchors = append(anchors, a+"-"+strconv.Itoa(n))
		} else {
			anchors = append(anchors, a)
		}
		seen[a]++
	})
	return anchors
}

// headingAnchor is GitHub's anchor of a heading: the text it shows,
// lowercased, with letters, digits, '-' and '_' kept, each space made '-',
// and everything else left out.
func headingAnchor(heading string) string {
	heading = headingLink.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}
