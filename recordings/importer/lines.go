package importer

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// lineReader yields a log's lines with their numbers, without the line end
// (LF or CRLF) and without a UTF-8 byte order mark on the first line. A
// truncated last line (no newline) is still a line.
//
// It reads the log in blocks of readBlock bytes and hands out lines as
// substrings of a block, so that a million-line log costs a few dozen
// allocations rather than one per line. Nothing keeps a line past the next
// call except through strings.Clone.
type lineReader struct {
	r    io.Reader
	buf  string // read and not yet returned
	eof  error  // the reader's final error, once seen
	n    int
	fill []byte
}

// readBlock is how much the line reader reads at a time.
const readBlock = 64 << 10

// next returns the next line and its 1-based number, or io.EOF.
func (l *lineReader) next() (string, int, error) {
	for {
		if l.n >= maxLines {
			return "", l.n, errors.New("more than 2 billion lines: import the log in parts")
		}
		if i := strings.IndexByte(l.buf, '\n'); i >= 0 {
			line := l.buf[:i]
			l.buf = l.buf[i+1:]
			return l.line(line), l.n, nil
		}
		if l.eof != nil {
			if !errors.Is(l.eof, io.EOF) {
				return "", l.n + 1, fmt.Errorf("line %d: %w", l.n+1, l.eof)
			}
			if l.buf == "" {
				return "", l.n, io.EOF
			}
			line := l.buf
			l.buf = ""
			return l.line(line), l.n, nil
		}
		if len(l.buf) > maxLineBytes {
			return "", l.n + 1, fmt.Errorf("line %d: longer than %d bytes: not a monitoring log", l.n+1, maxLineBytes)
		}
		l.read()
	}
}

// read appends up to one block to buf, recording the reader's error.
func (l *lineReader) read() {
	l.fill = append(l.fill[:0], l.buf...)
	l.fill = slices.Grow(l.fill, readBlock)
	n, err := io.ReadAtLeast(l.r, l.fill[len(l.fill):cap(l.fill)], 1)
	l.buf = string(l.fill[:len(l.fill)+n])
	if err != nil {
		l.eof = err
		if errors.Is(err, io.ErrUnexpectedEOF) {
			l.eof = io.EOF
		}
	}
}

// peek returns up to n bytes from the start of the log without consuming
// them, for format detection.
func (l *lineReader) peek(n int) (string, error) {
	for len(l.buf) < n && l.eof == nil {
		l.read()
	}
	if l.eof != nil && !errors.Is(l.eof, io.EOF) {
		return "", fmt.Errorf("reading the log: %w", l.eof)
	}
	return l.buf[:min(n, len(l.buf))], nil
}

// line counts a line and strips its CR and, on the first, the BOM.
func (l *lineReader) line(s string) string {
	l.n++
	s = strings.TrimSuffix(s, "\r")
	if l.n == 1 {
		s = strings.TrimPrefix(s, "\uFEFF")
	}
	return s
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
