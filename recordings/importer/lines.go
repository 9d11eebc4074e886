package importer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// lineReader yields a log's lines with their numbers, without the line end
// (LF or CRLF) and without a UTF-8 byte order mark on the first line. A
// truncated last line (no newline) is still a line.
type lineReader struct {
	r    *bufio.Reader
	n    int
	long []byte
}

func newLineReader(r *bufio.Reader) *lineReader { return &lineReader{r: r} }

// next returns the next line and its 1-based number, or io.EOF.
func (l *lineReader) next() (string, int, error) {
	chunk, err := l.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		// A line longer than the buffer: gather it, up to maxLineBytes.
		l.long = append(l.long[:0], chunk...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if len(l.long) > maxLineBytes {
				return "", l.n + 1, fmt.Errorf("line %d: longer than %d bytes: not a monitoring log", l.n+1, maxLineBytes)
			}
			chunk, err = l.r.ReadSlice('\n')
			l.long = append(l.long, chunk...)
		}
		chunk = l.long
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return "", l.n + 1, fmt.Errorf("line %d: %w", l.n+1, err)
	}
	if len(chunk) == 0 && err != nil {
		return "", l.n, io.EOF
	}
	l.n++
	chunk = bytes.TrimSuffix(chunk, []byte("\n"))
	chunk = bytes.TrimSuffix(chunk, []byte("\r"))
	if l.n == 1 {
		chunk = bytes.TrimPrefix(chunk, []byte("\uFEFF"))
	}
	return string(chunk), l.n, nil
}

// splitCSV splits one CSV line at commas, keeping commas inside double
// quotes, and trims the spaces nvidia-smi puts after each comma. Lines are
// split one at a time, so an unbalanced quote spoils only its own line.
func splitCSV(line string, dst []string) []string {
	dst = dst[:0]
	if !strings.Contains(line, `"`) {
		for {
			i := strings.IndexByte(line, ',')
			if i < 0 {
				return append(dst, strings.TrimSpace(line))
			}
			dst = append(dst, strings.TrimSpace(line[:i]))
			line = line[i+1:]
		}
	}
	var field strings.Builder
	quoted := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '"' && quoted && i+1 < len(line) && line[i+1] == '"':
			field.WriteByte('"')
			i++
		case c == '"':
			quoted = !quoted
		case c == ',' && !quoted:
			dst = append(dst, strings.TrimSpace(field.String()))
			field.Reset()
		default:
			field.WriteByte(c)
		}
	}
	return append(dst, strings.TrimSpace(field.String()))
}

// splitFields splits a column-aligned line (dmon, dcgmi dmon) at runs of
// spaces, tabs and commas, so that `dmon --format csv` reads like the text.
func splitFields(line string, dst []string) []string {
	dst = dst[:0]
	start := -1
	for i := 0; i < len(line); i++ {
		sep := line[i] == ' ' || line[i] == '\t' || line[i] == ','
		switch {
		case sep && start >= 0:
			dst = append(dst, line[start:i])
			start = -1
		case !sep && start < 0:
			start = i
		}
	}
	if start >= 0 {
		dst = append(dst, line[start:])
	}
	return dst
}

// quoteLine shortens a line for an error message.
func quoteLine(s string) string {
	const max = 60
	if len(s) > max {
		s = s[:max] + "..."
	}
	return fmt.Sprintf("%q", s)
}
