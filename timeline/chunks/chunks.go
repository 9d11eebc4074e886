package chunks

import (
	"encoding/binary"
	"math"
	"math/bits"
	"sync"
)

// MaxRows is the most rows a block may hold. A block's rows are a power of
// two of at least 8, so that its dictionary indexes fill whole bytes (rows
// of 1, 2 or 4 bits).
const MaxRows = 256

// Chunks keeps rows of 32-bit words, lanes words per series per row (1 for
// a store's raw values, 4 for a bucket's min, max, sum and count),
// appended one row at a time and dropped from the front, as Prometheus'
// head keeps each series in chunks.
//
// The newest rows are open, side by side as they came (a sample's values
// are written in one place); every block's worth of rows is sealed into one
// where each series' words are kept as compactly as they allow: one word
// for a run that does not change (a memory total, a power limit, an idle
// GPU's zeros: most of a GPU's series), a dictionary of up to 16 words and
// 1-4 bits a row for one that takes few values (utilisation in whole per
// cent over a quiet minute, a clock), two bytes a row where the words are
// float32 decimals of a spread that fits (utilisation to the hundredth,
// watts to the milliwatt: steps), the words themselves otherwise. Any row
// of any series reads back in constant time, bit for bit what was
// written: a store's numbers do not change for being kept.
//
// A row is read by its absolute index, First()+i for the i-th row held,
// good until the next append or drop.
type Chunks struct {
	lanes int
	// rows is how many rows a block holds.
	rows int
	// missing is the word of a series a row predates (added later).
	missing uint32
	// width is the series of the open rows; a block keeps its own.
	width  int
	skip   int // rows of blocks[0] (or of the open rows) dropped
	blocks []chunkBlock
	open   []uint32 // (row*width+series)*lanes+lane
	openN  int
	// bytes is what the sealed blocks hold.
	bytes int
	// step is, by series and lane, the step the last block kept the lane
	// at (an index of stepSizes), or -1.
	step []int8
}

// scratch is where a block is encoded before it is copied out at its size:
// shared, as a block of 64 hosts' series takes 9 MB to encode and each
// tier of each store kept its own.
var scratch = sync.Pool{New: func() any { return new([]byte) }}

// chunkBlock is a block of sealed rows: each series' encoded lanes at
// off[series] in data.
type chunkBlock struct {
	off  []uint32
	data []byte
}

func (b *chunkBlock) size() int { return 4*cap(b.off) + cap(b.data) }

// Lane encodings, the high nibble of a lane's first byte.
const (
	laneConst = iota // one word: [tag][word]
	laneDict         // [tag|bits][n][n words][rows*bits/8 bytes of indexes]
	laneRaw          // [tag][rows words]
	laneSteps        // [tag|step][base, 8 bytes][rows uint16 steps from base]
)

// stepSizes are the steps a lane's words are tried at as float32
// decimals, coarsest first (a wider spread fits in two bytes); a word
// reads back as float32((base+steps) * step), verified bit for bit before
// a lane is kept so.
var (
	stepSizes = [...]float64{1e9, 1e6, 1e3, 1, 0.1, 0.01, 0.001, 0.0001}
	perStep   = [...]float64{1e-9, 1e-6, 1e-3, 1, 10, 100, 1000, 10000} // steps a unit: faster than dividing
)

// New returns empty chunks of lanes words per series per row, sealed rows
// at a time (a power of two from 8 to MaxRows); missing is the word of a
// series that did not exist yet at a row.
func New(lanes, rows int, missing uint32) Chunks {
	if rows < 8 || rows > MaxRows || rows&(rows-1) != 0 || lanes < 1 {
		panic("chunks: rows must be a power of two from 8 to 256, lanes at least 1")
	}
	return Chunks{lanes: lanes, rows: rows, missing: missing}
}

// Len is how many rows the chunks hold.
func (c *Chunks) Len() int { return len(c.blocks)*c.rows + c.openN - c.skip }

// First is the absolute index of the oldest row: row i of the chunks is
// at First()+i until the next append or drop.
func (c *Chunks) First() int { return c.skip }

// AppendRow adds a row of width series and returns it, every word missing,
// for the caller to fill.
func (c *Chunks) AppendRow(width int) []uint32 {
	if c.openN == c.rows {
		c.seal()
	}
	if width != c.width {
		c.widen(width)
	}
	n := c.width * c.lanes
	need := (c.openN + 1) * n
	if cap(c.open) < need {
		// Room by doubling, to a block's rows: a file of 20 samples of a
		// quarter of a million series holds 20 rows, not 64.
		grown := make([]uint32, len(c.open), min(c.rows*n, max(need, 2*cap(c.open))))
		copy(grown, c.open)
		c.open = grown
	}
	c.open = c.open[:need]
	row := c.open[c.openN*n : need]
	fillWords(row, c.missing)
	c.openN++
	return row
}

// widen makes the open rows width series wide, series added since keeping
// the missing word. A store adds the series of a sample all at once, so
// the open rows move once, not once per series.
func (c *Chunks) widen(width int) {
	old, ow := c.open, c.width
	c.width = width
	if c.openN == 0 {
		c.open = nil
		return
	}
	c.open = make([]uint32, c.openN*width*c.lanes)
	for r := range c.openN {
		dst := c.open[r*width*c.lanes : (r+1)*width*c.lanes]
		n := copy(dst, old[r*ow*c.lanes:(r+1)*ow*c.lanes])
		fillWords(dst[n:], c.missing)
	}
}

// GetLanes writes every lane of series id at absolute row a into dst.
func (c *Chunks) GetLanes(a, id int, dst []uint32) {
	b, r := a/c.rows, a%c.rows
	if b == len(c.blocks) {
		if id >= c.width {
			fillWords(dst, c.missing)
			return
		}
		copy(dst, c.open[(r*c.width+id)*c.lanes:])
		return
	}
	blk := &c.blocks[b]
	if id >= len(blk.off) {
		fillWords(dst, c.missing)
		return
	}
	data := blk.data[blk.off[id]:]
	for lane := range dst {
		l := decodeLane(data)
		dst[lane] = l.at(r)
		if lane < len(dst)-1 {
			data = data[laneLen(data, c.rows):]
		}
	}
}

func fillWords(dst []uint32, w uint32) {
	for i := range dst {
		dst[i] = w
	}
}

// DropFront lets go of the n oldest rows.
func (c *Chunks) DropFront(n int) {
	c.skip += n
	for c.skip >= c.rows {
		if len(c.blocks) == 0 {
			if c.openN < c.rows {
				break
			}
			c.seal()
		}
		c.bytes -= c.blocks[0].size()
		c.blocks[0] = chunkBlock{}
		c.blocks = c.blocks[1:]
		c.skip -= c.rows
	}
	if c.Len() <= 0 {
		c.Reset()
	}
}

// DropBlock lets go of the oldest sealed block, or of what is left of it:
// what a budget gives up at once. It says how many rows went.
func (c *Chunks) DropBlock() int {
	if len(c.blocks) == 0 {
		return 0
	}
	n := c.rows - c.skip
	c.DropFront(n)
	return n
}

// Reset lets go of every row.
func (c *Chunks) Reset() {
	*c = Chunks{lanes: c.lanes, rows: c.rows, missing: c.missing}
}

// seal encodes the open rows, full, into a block.
func (c *Chunks) seal() {
	sp := scratch.Get().(*[]byte)
	buf := (*sp)[:0]
	off := make([]uint32, c.width)
	stride := c.width * c.lanes
	for len(c.step) < stride {
		c.step = append(c.step, -1)
	}
	// The rows are read a tile of lanes at a time, each row's part of it
	// one cache line, not a lane at a time across every row; the tile's
	// lanes lie a block's rows apart, however many MaxRows allows.
	const tileLanes = 16
	var tile [tileLanes * MaxRows]uint32
	rows := c.rows
	for k0 := 0; k0 < stride; k0 += tileLanes {
		n := min(tileLanes, stride-k0)
		for r := range rows {
			for j, v := range c.open[r*stride+k0 : r*stride+k0+n] {
				tile[j*rows+r] = v
			}
		}
		for j := range n {
			k := k0 + j
			if k%c.lanes == 0 {
				off[k/c.lanes] = uint32(len(buf))
			}
			buf = c.encodeLane(buf, k, tile[j*rows:(j+1)*rows])
		}
	}
	blk := chunkBlock{off: off, data: append([]byte(nil), buf...)}
	*sp = buf
	scratch.Put(sp)
	c.blocks = append(c.blocks, blk)
	c.bytes += blk.size()
	c.openN, c.open = 0, c.open[:0]
}

// encodeLane appends lane k (series*lanes+lane) of a block's rows: one
// word where they do not change (most series, most blocks), else at the
// step the last block took where it took one (far cheaper to try than a
// dictionary that fills up), else as few bytes as appendLane finds.
func (c *Chunks) encodeLane(dst []byte, k int, vals []uint32) []byte {
	diff := uint32(0)
	for _, v := range vals {
		diff |= v ^ vals[0]
	}
	if diff == 0 {
		return binary.LittleEndian.AppendUint32(append(dst, laneConst<<4), vals[0])
	}
	if c.step[k] >= 0 {
		if out, ok := appendStepsAt(dst, vals, int(c.step[k])); ok {
			return out
		}
		c.step[k] = -1
	}
	n := len(dst)
	dst = appendLane(dst, vals)
	if dst[n]>>4 == laneSteps {
		c.step[k] = int8(dst[n] & 0xf)
	}
	return dst
}

// appendLane encodes one lane of a block's rows, of two values or more:
// a dictionary of them, steps or the words themselves, the fewest bytes.
func appendLane(dst []byte, vals []uint32) []byte {
	var dict [16]uint32
	var idx [MaxRows]uint8
	n := 0
	for r, v := range vals {
		j := 0
		for j < n && dict[j] != v {
			j++
		}
		if j == n {
			if n == len(dict) {
				if out, ok := appendSteps(dst, vals); ok {
					return out
				}
				dst = append(dst, laneRaw<<4)
				for _, v := range vals {
					dst = binary.LittleEndian.AppendUint32(dst, v)
				}
				return dst
			}
			dict[n] = v
			n++
		}
		idx[r] = uint8(j)
	}
	bits := 1
	for 1<<bits < n {
		bits *= 2
	}
	if 9+2*len(vals) < 2+4*n+len(vals)*bits/8 {
		if out, ok := appendSteps(dst, vals); ok {
			return out
		}
	}
	dst = append(dst, laneDict<<4|byte(bits), byte(n))
	for _, v := range dict[:n] {
		dst = binary.LittleEndian.AppendUint32(dst, v)
	}
	perByte := 8 / bits
	for r := 0; r < len(vals); r += perByte {
		var b byte
		for k := range perByte {
			b |= idx[r+k] << (k * bits)
		}
		dst = append(dst, b)
	}
	return dst
}

// appendSteps encodes a lane as steps from a base, if its words are
// float32 that some step reads back exactly and their spread fits: the
// coarsest such step (a wider spread fits in two bytes).
func appendSteps(dst []byte, vals []uint32) ([]byte, bool) {
	for k := range stepSizes {
		if out, ok := appendStepsAt(dst, vals, k); ok {
			return out, true
		}
	}
	return dst, false
}

// appendStepsAt encodes a lane as steps of stepSizes[k] from a base, if
// every word is a whole number of steps that reads back bit for bit and
// their spread fits in two bytes.
func appendStepsAt(dst []byte, vals []uint32, k int) ([]byte, bool) {
	step, per := stepSizes[k], perStep[k]
	var xs [MaxRows]int64
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for r, w := range vals {
		f := float64(math.Float32frombits(w)) * per
		if !(math.Abs(f) < 1<<52) {
			return dst, false // NaN or infinite
		}
		x := int64(f + math.Copysign(0.5, f)) // to the nearest: checked below
		if math.Float32bits(float32(float64(x)*step)) != w {
			return dst, false // not a whole number of steps
		}
		xs[r], lo, hi = x, min(lo, x), max(hi, x)
		if hi-lo > math.MaxUint16 {
			return dst, false
		}
	}
	dst = binary.LittleEndian.AppendUint64(append(dst, laneSteps<<4|byte(k)), uint64(lo))
	for _, x := range xs[:len(vals)] {
		dst = binary.LittleEndian.AppendUint16(dst, uint16(x-lo))
	}
	return dst, true
}

// laneLen is the length of the encoded lane of a block of rows at the
// start of data.
func laneLen(data []byte, rows int) int {
	switch data[0] >> 4 {
	case laneConst:
		return 5
	case laneDict:
		bits := int(data[0] & 0xf)
		return 2 + 4*int(data[1]) + rows*bits/8
	case laneSteps:
		return 9 + 2*rows
	}
	return 1 + 4*rows
}

// lane is one encoded lane, its header read: what a row's word is found
// from.
type lane struct {
	kind    byte
	bits    int
	word    uint32 // a run of one word, or the word of a missing series
	data    []byte // the lane's dictionary and indexes, its words or steps
	dictLen int
	base    int64   // laneSteps
	step    float64 // laneSteps
}

// decodeLane reads the header of the encoded lane at the start of data.
func decodeLane(data []byte) lane {
	l := lane{kind: data[0] >> 4}
	switch l.kind {
	case laneConst:
		l.word = binary.LittleEndian.Uint32(data[1:])
	case laneDict:
		l.bits, l.dictLen, l.data = int(data[0]&0xf), int(data[1]), data[2:]
	case laneSteps:
		l.step, l.base, l.data = stepSizes[data[0]&0xf], int64(binary.LittleEndian.Uint64(data[1:])), data[9:]
	default:
		l.data = data[1:]
	}
	return l
}

// at is row r's word of a sealed lane, or of a missing series.
func (l *lane) at(r int) uint32 {
	switch l.kind {
	case laneDict:
		bit := r * l.bits
		j := int(l.data[4*l.dictLen+bit/8]>>(bit%8)) & (1<<l.bits - 1)
		return binary.LittleEndian.Uint32(l.data[4*j:])
	case laneRaw:
		return binary.LittleEndian.Uint32(l.data[4*r:])
	case laneSteps:
		steps := int64(binary.LittleEndian.Uint16(l.data[2*r:]))
		return math.Float32bits(float32(float64(l.base+steps) * l.step))
	}
	return l.word
}

// HeldBytes is what the chunks hold: the sealed blocks and the open rows.
func (c *Chunks) HeldBytes() int { return c.bytes + 4*cap(c.open) + 48*cap(c.blocks) }

// Cursor reads one lane of one series row after row, as a series is
// read across a window: each block's encoding is looked up once, not at
// every row.
type Cursor struct {
	c        *Chunks
	id, lane int
	blk      int // the block looked up, -1 for none
	shift    int // a row's block is its index >> shift (rows are a power of two)
	open     bool
	sealed   lane // the block's lane, where it is sealed
}

// laneMissing is a lane's kind where a series is missing (the block
// predates it): its word is the missing word.
const laneMissing = 0xe

// Cursor reads lane of series id at absolute rows in turn.
func (c *Chunks) Cursor(id, lane int) Cursor {
	return Cursor{c: c, id: id, lane: lane, blk: -1, shift: bits.TrailingZeros(uint(c.rows))}
}

// At is the word at absolute row a.
func (k *Cursor) At(a int) uint32 {
	b, r := a>>k.shift, a&(1<<k.shift-1)
	if b != k.blk {
		k.load(b)
	}
	if k.open {
		c := k.c
		return c.open[(r*c.width+k.id)*c.lanes+k.lane]
	}
	return k.sealed.at(r)
}

func (k *Cursor) load(b int) {
	c := k.c
	k.blk, k.open = b, false
	switch {
	case b == len(c.blocks) && k.id < c.width:
		k.open = true
	case b == len(c.blocks) || k.id >= len(c.blocks[b].off):
		k.sealed = lane{kind: laneMissing, word: c.missing}
	default:
		blk := &c.blocks[b]
		data := blk.data[blk.off[k.id]:]
		for range k.lane {
			data = data[laneLen(data, c.rows):]
		}
		k.sealed = decodeLane(data)
	}
}
