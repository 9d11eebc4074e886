package prom

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gputop-dev/gputop/recordings/importer"
	"github.com/gputop-dev/gputop/timeline"
)

// An answer of Prometheus is read into memory whole and parsed there
// (promjson.go), so its size is bounded before it is read, by what the
// query could honestly return:
//
//	64 KiB + maxAnswerSeries × (labelBytes + points × pointBytes), at most maxAnswerBytes
//
// A point is at most 46 bytes as Prometheus writes it
// (`[1764057600.123,"-1.2345678901234567e-308"],`), 30 or so in practice;
// a dcgm-exporter series' labels are about 600 bytes; one series name
// has a series per GPU (or MIG slice), and 4,096 of them is 512 nodes of
// eight. A query of a few points is then bounded in megabytes; one of
// thousands by the cap, 64 MiB: two million points, a day at 15 s of 350
// GPUs in one answer. Four answers are in flight at once, so the text of
// answers takes at most 256 MiB (each query's buffer reused for the
// next), and the points parsed from them 8 bytes each, less where a value
// holds (promvals.go). A saved file is read one answer at a time, each
// under the cap.
const (
	maxAnswerBytes  = 64 << 20
	maxAnswerSeries = 4096
	labelBytes      = 2 << 10
	pointBytes      = 48
	answerEnvelope  = 64 << 10
)

// answerLimit is the most bytes an answer to a query of points points per
// series may take.
func answerLimit(points int) int64 {
	n := int64(answerEnvelope) + int64(maxAnswerSeries)*(labelBytes+int64(points)*pointBytes)
	return min(n, maxAnswerBytes)
}

// errAnswerTooLarge is an answer over its limit.
type errAnswerTooLarge struct{ limit int64 }

func (e errAnswerTooLarge) Error() string { return fmt.Sprintf("exceeded %s", sizeText(e.limit)) }

// sizeText writes a limit in MiB, or KiB below one.
func sizeText(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", (n+(1<<19))>>20)
	}
	return fmt.Sprintf("%d KiB", (n+(1<<9))>>10)
}

// readLimited reads all of r, up to limit bytes: more is errAnswerTooLarge,
// found without reading past it. size is the length the sender declared
// (-1 if none): over the limit, it fails before reading. It reads into
// buf's room, which it grows as it must: a query's answer is parsed and
// dropped before the next is read, and a new buffer for each (grown by
// io.ReadAll, an answer's length being rarely declared) was 690 MB of the
// 954 MB a day of 64 GPUs allocated.
func readLimited(buf []byte, r io.Reader, limit, size int64) ([]byte, error) {
	if size > limit {
		return nil, errAnswerTooLarge{limit}
	}
	if size > 0 && int64(cap(buf)) < size+1 {
		buf = make([]byte, 0, size+1) // its length is known: one allocation of it
	}
	b, err := readAll(buf[:0], io.LimitReader(r, limit+1), limit+1)
	if size > 0 && int64(len(b)) <= size && errors.Is(err, io.ErrUnexpectedEOF) {
		err = nil // shorter than it declared: the parser says where it ends
	}
	if int64(len(b)) > limit {
		return nil, errAnswerTooLarge{limit}
	}
	return b, err
}

// readAll is io.ReadAll into b's room, which it doubles (up to most bytes)
// when full: io.ReadAll grows a large slice by a quarter, so that an
// answer's buffers came to five times its size.
func readAll(b []byte, r io.Reader, most int64) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			nb := make([]byte, len(b), min(max(2*int64(cap(b)), 512), max(most, int64(len(b))+1)))
			copy(nb, b)
			b = nb
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
	}
}

// splitAnswers reads saved answers, a JSON value at a time, and hands each
// answer's text to each: several values one after another, or a JSON
// array of them (whose elements are handed one by one). A value over
// limit bytes is errAnswerTooLarge. It checks only where values begin and
// end (strings, escapes, nesting); the parser checks the rest.
func splitAnswers(r io.Reader, limit int, each func(text []byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	inArray := false
	for {
		c, err := skipSpace(br)
		if err == io.EOF {
			if inArray {
				return errEnds
			}
			return nil
		}
		if err != nil {
			return err
		}
		switch {
		case !inArray && c == '[':
			// An array of answers, or an answer that is not an object
			// (refused by the parser): tell them by what follows.
			next, err := skipSpace(br)
			if err == io.EOF {
				return each([]byte("["))
			}
			if err != nil {
				return err
			}
			if next == ']' {
				continue // an empty array
			}
			if next != '{' {
				return each([]byte("[" + string(next)))
			}
			inArray = true
			br.UnreadByte()
			continue
		case inArray && c == ']':
			inArray = false
			continue
		case inArray && c == ',':
			continue
		}
		br.UnreadByte()
		buf, err = readValue(br, buf[:0], limit)
		if err != nil {
			return err
		}
		if err := each(buf); err != nil {
			return err
		}
	}
}

func skipSpace(br *bufio.Reader) (byte, error) {
	for {
		c, err := br.ReadByte()
		if err != nil {
			return 0, err
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c, nil
	}
}

// readValue appends one JSON value to buf: an object or array up to its
// closing bracket, or a scalar up to the next space or delimiter. A value
// cut off by the end of the file is given as it is (the parser says where
// it ends), and one past limit bytes is errAnswerTooLarge.
func readValue(br *bufio.Reader, buf []byte, limit int) ([]byte, error) {
	depth, inString, escaped := 0, false, false
	for {
		c, err := br.ReadByte()
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		if len(buf) >= limit {
			return nil, errAnswerTooLarge{int64(limit)}
		}
		if depth == 0 && !inString && len(buf) > 0 && buf[0] != '{' && buf[0] != '[' && buf[0] != '"' {
			switch c {
			case ' ', '\t', '\n', '\r', ',', ']', '}', '{', '[':
				br.UnreadByte()
				return buf, nil // the end of a scalar
			}
		}
		buf = append(buf, c)
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
			if depth == 0 {
				return buf, nil
			}
		case inString:
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth <= 0 {
				return buf, nil
			}
		}
	}
}

// maxServerText bounds what an error quotes of a server's text.
const maxServerText = 300

// serverText makes a server's text (its error, its status line) safe and
// short enough for one line: no escape sequences or control characters,
// at most maxServerText bytes, cut at a character.
func serverText(s string) string {
	return importer.CutText(strings.Join(strings.Fields(timeline.CleanText(s)), " "), maxServerText)
}
