package format

import (
	"github.com/gputop-dev/gputop/timeline"

	"encoding/binary"
	"errors"
	"hash/crc32"
)

// Castagnoli is the CRC-32C table: every checksum in the format uses it.
var Castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrCorrupt says bytes do not decode as the format says they must.
var ErrCorrupt = errors.New("corrupt data")

// ErrPastBounds says a segment holds more than a writer puts in one
// (format.go): no gputop wrote it.
var ErrPastBounds = errors.New("more than a segment holds")

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// AppendRecord appends one record: type, payload length, payload.
func AppendRecord(b []byte, typ byte, payload []byte) []byte {
	b = append(b, typ)
	b = binary.AppendUvarint(b, uint64(len(payload)))
	return append(b, payload...)
}

// AppendSkippable appends a zstd skippable frame of the given kind.
func AppendSkippable(b []byte, kind uint32, content []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, SkippableMagic|kind)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(content)))
	return append(b, content...)
}

// cursor reads the format's primitives from a byte slice. The first thing
// that does not decode sets err; every later read returns zero values, so
// a decoder checks err once at the end instead of after every field.
type cursor struct {
	b   []byte
	err error
}

func (c *cursor) fail() { c.failWith(ErrCorrupt) }

// failWith is fail with a reason of its own.
func (c *cursor) failWith(err error) {
	if c.err == nil {
		c.err = err
	}
	c.b = nil
}

func (c *cursor) uvarint() uint64 {
	v, n := binary.Uvarint(c.b)
	if n <= 0 {
		c.fail()
		return 0
	}
	c.b = c.b[n:]
	return v
}

func (c *cursor) varint() int64 {
	v, n := binary.Varint(c.b)
	if n <= 0 {
		c.fail()
		return 0
	}
	c.b = c.b[n:]
	return v
}

func (c *cursor) byte() byte {
	if len(c.b) < 1 {
		c.fail()
		return 0
	}
	v := c.b[0]
	c.b = c.b[1:]
	return v
}

func (c *cursor) bytes(n uint64) []byte {
	if n > uint64(len(c.b)) {
		c.fail()
		return nil
	}
	v := c.b[:n:n]
	c.b = c.b[n:]
	return v
}

func (c *cursor) string() string { return string(c.bytes(c.uvarint())) }

// text is a string that will be shown to a person (an error, a command
// line, a marker), through timeline.CleanText: a file or a stream, written
// by anyone, cannot move a terminal's cursor or set its clipboard.
func (c *cursor) text() string { return timeline.CleanText(c.string()) }

func (c *cursor) uint64() uint64 {
	v := c.bytes(8)
	if v == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(v)
}

// count reads a list length and checks it against the bytes left, at
// least min bytes an element, so a corrupt length cannot make a decoder
// allocate more than the input could hold.
func (c *cursor) count(min int) int {
	n := c.uvarint()
	if n > uint64(len(c.b)/min) {
		c.fail()
		return 0
	}
	return int(n)
}
