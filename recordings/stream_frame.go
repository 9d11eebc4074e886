package recordings

import (
	"bufio"
	"bytes"
	"errors"
	"io"

	"github.com/gputop-dev/gputop/recordings/format"
)

// frameReader hands the zstd decoder one zstd frame of the stream, as it
// arrives, and then io.EOF: it follows the frame's block headers (RFC 8878,
// 3.1.1) so that it never reads past the frame's end, and never asks the
// stream for more than the decoder needs to finish the block it is in.
type frameReader struct {
	src     *bufio.Reader
	pending []byte // header bytes read, not yet handed on
	body    int    // bytes left of the current block
	started bool   // the frame header was read
	last    bool   // the current block is the frame's last
	sum     bool   // the frame ends with a 4-byte checksum
	done    bool
	err     error // the first trouble: the source's, a cut, or damage
}

func (f *frameReader) reset() { *f = frameReader{src: f.src, pending: f.pending[:0]} }

func (f *frameReader) Read(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	if len(f.pending) == 0 && f.body == 0 {
		if err := f.advance(); err != nil {
			if !errors.Is(err, io.EOF) || !f.done {
				f.err = err
			}
			return 0, err
		}
	}
	if len(f.pending) > 0 {
		n := copy(p, f.pending)
		f.pending = f.pending[:copy(f.pending, f.pending[n:])]
		return n, nil
	}
	n, err := f.src.Read(p[:min(len(p), f.body)])
	f.body -= n
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	f.err = err // nil before: checked first
	return n, err
}

// advance reads the next header of the frame into pending: the frame's
// own, a block's, or the closing checksum; io.EOF once the frame is done.
func (f *frameReader) advance() error {
	switch {
	case f.done:
		return io.EOF
	case !f.started:
		f.started = true
		return f.readFrameHeader()
	case f.last:
		f.done = true
		if f.sum {
			return f.take(4)
		}
		return io.EOF
	}
	if err := f.take(3); err != nil {
		return err
	}
	b := f.pending[len(f.pending)-3:]
	h := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
	size, typ := int(h>>3), (h>>1)&3
	if typ == 1 {
		size = 1 // RLE: one byte, repeated
	}
	if size > format.MaxBlockSize || typ == 3 { // type 3 is reserved
		return damaged("bad zstd block")
	}
	f.body, f.last = size, h&1 != 0
	return nil
}

func (f *frameReader) readFrameHeader() error {
	if err := f.take(len(format.ZstdMagic) + 1); err != nil {
		return err
	}
	if !bytes.Equal(f.pending[:len(format.ZstdMagic)], format.ZstdMagic) {
		return damaged("no zstd frame after a segment header")
	}
	fhd := f.pending[len(format.ZstdMagic)]
	if fhd&0x08 != 0 {
		return damaged("bad zstd frame header")
	}
	single := fhd&0x20 != 0
	n := [4]int{0, 1, 2, 4}[fhd&3] + [4]int{0, 2, 4, 8}[fhd>>6]
	if fhd>>6 == 0 || !single {
		n++ // window descriptor, or a one-byte content size when single-segment
	}
	f.sum = fhd&0x04 != 0
	return f.take(n)
}

// take appends the next n bytes of the stream to pending.
func (f *frameReader) take(n int) error {
	l := len(f.pending)
	f.pending = append(f.pending, make([]byte, n)...)
	if _, err := io.ReadFull(f.src, f.pending[l:]); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	return nil
}
