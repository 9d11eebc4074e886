package importer

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

func readLines(r io.Reader) ([]string, error) {
	l := &lineReader{r: r}
	var out []string
	for {
		s, n, err := l.next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if n != len(out)+1 {
			return out, errors.New("line numbers out of step")
		}
		out = append(out, s)
	}
}

func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", 3*readBlock)
	for _, c := range []struct {
		name string
		in   io.Reader
		want []string
	}{
		{"LF", strings.NewReader("a\nb\n"), []string{"a", "b"}},
		{"CRLF and BOM", strings.NewReader("\uFEFFa,b\r\nc\r\n"), []string{"a,b", "c"}},
		{"no newline at the end", strings.NewReader("a\nb"), []string{"a", "b"}},
		{"blank lines are lines", strings.NewReader("\n\na\n"), []string{"", "", "a"}},
		{"BOM only on line 1", strings.NewReader("a\n\uFEFFb\n"), []string{"a", "\uFEFFb"}},
		{"one byte at a time", iotest.OneByteReader(strings.NewReader("ab\r\ncd\n")), []string{"ab", "cd"}},
		{"lines across blocks", strings.NewReader(long + "\n" + long), []string{long, long}},
	} {
		got, err := readLines(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, %v", c.name, got, err)
		}
	}
	if _, err := readLines(strings.NewReader(strings.Repeat("x", maxLineBytes+readBlock))); err == nil || !strings.Contains(err.Error(), "line 1: longer than") {
		t.Errorf("overlong line: %v", err)
	}
	broken := io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(errors.New("disk on fire")))
	if got, err := readLines(broken); err == nil || err.Error() != "line 2: disk on fire" || !slices.Equal(got, []string{"a"}) {
		t.Errorf("read error: %q, %v", got, err)
	}
}
