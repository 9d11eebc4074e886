package importer

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// Logs saved by Windows tools are often UTF-16: PowerShell 5's `>` and
// Out-File write UTF-16 LE with a byte order mark, and some editors save
// "Unicode" as UTF-16 BE. DecodeText reads them as the UTF-8 every parser
// reads; a UTF-8 byte order mark is the line reader's to drop.

// DecodeText returns the log as UTF-8 text, and the name of the encoding it
// was converted from ("" for UTF-8 or ASCII, read as is). It tells UTF-16
// by its byte order mark, or, without one, by the NUL beside each of the
// first ASCII characters.
func DecodeText(r io.Reader) (io.Reader, string, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(4)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, "", err
	}
	var order binary.ByteOrder
	name, bom := "", 0
	switch {
	case len(head) >= 2 && head[0] == 0xFF && head[1] == 0xFE:
		order, name, bom = binary.LittleEndian, "UTF-16 LE", 2
	case len(head) >= 2 && head[0] == 0xFE && head[1] == 0xFF:
		order, name, bom = binary.BigEndian, "UTF-16 BE", 2
	case len(head) == 4 && asciiByte(head[0]) && head[1] == 0 && asciiByte(head[2]) && head[3] == 0:
		order, name = binary.LittleEndian, "UTF-16 LE"
	case len(head) == 4 && head[0] == 0 && asciiByte(head[1]) && head[2] == 0 && asciiByte(head[3]):
		order, name = binary.BigEndian, "UTF-16 BE"
	default:
		return br, "", nil
	}
	if _, err := br.Discard(bom); err != nil {
		return nil, "", err
	}
	return &utf16Reader{r: br, order: order}, name, nil
}

// asciiByte says whether b is a printable ASCII character or a tab, CR or
// LF: what a log's first characters are.
func asciiByte(b byte) bool { return b >= 0x20 && b < 0x7F || b == '\t' || b == '\r' || b == '\n' }

// utf16Reader converts UTF-16 to UTF-8 as it is read. A lone surrogate or
// a last odd byte becomes U+FFFD, as any byte that is not text does.
type utf16Reader struct {
	r     *bufio.Reader
	order binary.ByteOrder
	in    []byte // read, not yet converted: at most one code unit and a half
	out   []byte // converted, not yet returned
	err   error
}

// utf16Block is how much UTF-16 the reader converts at a time.
const utf16Block = 32 << 10

func (u *utf16Reader) Read(p []byte) (int, error) {
	for len(u.out) == 0 {
		if u.err != nil {
			return 0, u.err
		}
		u.fill()
	}
	n := copy(p, u.out)
	u.out = u.out[n:]
	return n, nil
}

// fill reads a block and converts every complete code unit and pair in it.
func (u *utf16Reader) fill() {
	buf := make([]byte, len(u.in), len(u.in)+utf16Block)
	copy(buf, u.in)
	n, err := io.ReadAtLeast(u.r, buf[len(buf):cap(buf)], 1)
	buf = buf[:len(buf)+n]
	if err != nil {
		u.err = err
		if errors.Is(err, io.ErrUnexpectedEOF) {
			u.err = io.EOF
		}
	}
	out := make([]byte, 0, len(buf)*3/2+4)
	i := 0
	for ; i+1 < len(buf); i += 2 {
		c := rune(u.order.Uint16(buf[i:]))
		if utf16.IsSurrogate(c) && c < 0xDC00 && i+3 >= len(buf) && u.err == nil {
			break // the pair's second half is in the next block
		}
		if utf16.IsSurrogate(c) && i+3 < len(buf) {
			if r := utf16.DecodeRune(c, rune(u.order.Uint16(buf[i+2:]))); r != utf8.RuneError {
				out = utf8.AppendRune(out, r)
				i += 2
				continue
			}
		}
		out = utf8.AppendRune(out, c) // a lone surrogate as U+FFFD, as AppendRune writes one
	}
	u.in = append(u.in[:0], buf[i:]...)
	if u.err != nil && len(u.in) > 0 {
		out = utf8.AppendRune(out, utf8.RuneError) // an odd last byte
		u.in = u.in[:0]
	}
	u.out = out
}
