package format

import (
	"encoding/binary"
	"math"
)

// How a metric value is stored, exactly and compactly.
//
// Most raw numbers are integers or short decimals in disguise: 97 %, 71 °C,
// 412.345 W (from milliwatts), 123456.78 CPU seconds (from 1/100 s ticks),
// 97.1666… % (the mean of six integer sub-samples, 583/6). Each is n/den for
// a small integer den, and float64(n)/float64(den) gives back the very same
// bits. So a key stores n at a denominator it keeps while its values fit,
// and each value costs the Rice code (bits.go) of the difference between n
// and a prediction of it. Gauges predict "same as last time", counters "the
// same step as last time", so a constant costs one bit and a steady 400 W on
// the energy counter a few.
//
// Values computed in floating point (a sum of float CPU seconds) land a few
// units in the last place beside n/den: they keep the denominator and add
// that offset, in ulps, so they stay exact and cheap. Anything else is
// stored as its 8 raw bytes.
//
// Worked example, power in watts, at the start of a segment: 412.345 is
// an exception (absolute: den 1000, n 412345); 412.350 is residual +5,
// zigzag 10, Rice coded at k=0 (nothing learned yet): 11 bits; the running
// mean is now 10, so k=4 and 412.350 again (residual 0) costs 5 bits; k
// falls as quiet values follow, to 1 bit for a reading that does not move.
//
// A sample record stores its values in two parts. First the exceptions, as
// bytes: a uvarint count, then for each the uvarint gap from the previous
// exception's position + 1 (the position in the sample's layout), a uvarint
// op and its fields:
//
//	0  the canonical NaN (math.NaN()); the key's state is unchanged
//	1  raw: 8 bytes, IEEE 754 little-endian; the key has no denominator after it
//	2  absolute: uvarint den, varint n, varint ulps; the key starts afresh at den
//	3  offset: varint residual, varint ulps; from now on the key's residuals
//	   are followed by zigzag(ulps) + 1 in Elias gamma code
//
// Then, for every other value in layout order, its residual: zigzag, Rice
// coded with the key's own parameter, most significant bit first, the last
// byte padded with zeros.
const (
	opNaN      = 0
	opRaw      = 1
	OpAbsolute = 2 // exported for the tests that write records by hand
	opOffset   = 3
)

// canonicalNaN is math.NaN()'s bits. Any other NaN is stored raw, so every
// bit pattern survives.
var canonicalNaN = math.Float64bits(math.NaN())

// denominators are tried in order when a key's own no longer fits: the
// decimals NVML and /proc produce, then the sample counts a mean of
// sub-second samples divides by (2, 4, 5 and 8 are decimals already), then
// micro- and nanoseconds for durations in seconds. A reader takes any den.
var denominators = [...]int64{1, 10, 100, 1000, 3, 6, 7, 9, 11, 12, 1e6, 1e9}

// maxExact is the largest integer magnitude a float64 holds exactly.
const maxExact = 1 << 53

// maxUlps is how far, in units in the last place, a value may sit from
// n/den and still be stored at den. Float sums of a few dozen decimals
// stay well within it; arbitrary values are thousands of ulps away.
const maxUlps = 64

// nearest returns the n whose n/den is closest to v, and how many ulps v
// is from n/den. ok is false if v is further than maxUlps from it.
func nearest(v float64, den int64) (n, ulps int64, ok bool) {
	x := v * float64(den)
	if !(math.Abs(x) < maxExact) { // also refuses NaN and ±Inf
		return 0, 0, false
	}
	n = int64(math.Round(x))
	ulps = int64(math.Float64bits(v)) - int64(math.Float64bits(float64(n)/float64(den)))
	if ulps < -maxUlps || ulps > maxUlps {
		return 0, 0, false
	}
	return n, ulps, true
}

// ratio is n/den as a float64, the reader's side of nearest (withUlps adds
// the ulps). Most values are whole numbers (80 % of a day of 8 GPUs): they
// are not divided by 1.
func ratio(n, den int64) float64 {
	q := float64(n)
	if den != 1 {
		q /= float64(den)
	}
	return q
}

// valueState is what a key remembers between its values in one segment.
// Writer and reader update it identically from the numbers they share.
type valueState struct {
	den  int64 // 0: no denominator yet (start of segment, or after a raw value)
	last int64 // the last value, times den
	step int64 // the last change of last, for counters
	ulps bool  // residuals carry an ulp offset
	// counter is the key's kind, for the reader: a sample's metrics of
	// the layout before have their keys, and d.keys is not read.
	counter bool
	rice    riceStats
	// at is last/den as a float64 with no ulps (the reader's only): a
	// value that does not move, 59 % of a day's, is not divided again.
	at float64
}

// advance records n as the key's new value.
func (st *valueState) advance(n int64) {
	st.step = n - st.last
	st.last = n
}

func (st *valueState) predict(counter bool) int64 {
	if counter {
		return st.last + st.step
	}
	return st.last
}

// encodeValue stores v for a key whose state is st: as a residual in bw,
// or as an exception appended to exc (then isExc is true).
func (st *valueState) encodeValue(v float64, counter bool, bw *bitWriter, exc []byte) (_ []byte, isExc bool) {
	if math.Float64bits(v) == canonicalNaN {
		return binary.AppendUvarint(exc, opNaN), true
	}
	if st.den != 0 {
		if n, ulps, ok := nearest(v, st.den); ok {
			r := n - st.predict(counter)
			st.advance(n)
			if ulps != 0 && !st.ulps {
				st.ulps = true
				exc = binary.AppendUvarint(exc, opOffset)
				exc = binary.AppendVarint(exc, r)
				return binary.AppendVarint(exc, ulps), true
			}
			u := zigzag(r)
			bw.rice(u, st.rice.k())
			st.rice.add(u)
			if st.ulps {
				bw.gamma(zigzag(ulps))
			}
			return exc, false
		}
	}
	if den, n, ulps, ok := bestDenominator(v); ok {
		*st = valueState{den: den, last: n, ulps: ulps != 0}
		exc = binary.AppendUvarint(exc, OpAbsolute)
		exc = binary.AppendUvarint(exc, uint64(den))
		exc = binary.AppendVarint(exc, n)
		return binary.AppendVarint(exc, ulps), true
	}
	st.den = 0
	exc = binary.AppendUvarint(exc, opRaw)
	return binary.LittleEndian.AppendUint64(exc, math.Float64bits(v)), true
}

// bestDenominator is the first denominator at which v is exact, or failing
// that the first at which it is within maxUlps.
func bestDenominator(v float64) (den, n, ulps int64, ok bool) {
	for _, d := range denominators {
		if n, u, ok := nearest(v, d); ok && u == 0 {
			return d, n, 0, true
		}
	}
	for _, d := range denominators {
		if n, u, ok := nearest(v, d); ok {
			return d, n, u, true
		}
	}
	return 0, 0, 0, false
}

// exception is one decoded exception: its position and what it says.
type exception struct {
	index int
	op    uint64
	a     int64 // raw: the bits; absolute: den; offset: the residual
	b     int64 // absolute: n; offset: ulps
	c     int64 // absolute: ulps
}

// readException reads one exception's op and fields.
func readException(c *cursor, index int) exception {
	e := exception{index: index, op: c.uvarint()}
	switch e.op {
	case opNaN:
	case opRaw:
		e.a = int64(c.uint64())
	case OpAbsolute:
		den := c.uvarint()
		if den == 0 || den > math.MaxInt64 {
			c.fail()
		}
		e.a, e.b, e.c = int64(den), c.varint(), c.varint()
	case opOffset:
		e.a, e.b = c.varint(), c.varint()
	default:
		c.fail()
	}
	return e
}

// apply is the reader's side of an exception. ok is false for an offset
// to a key with no denominator.
func (st *valueState) apply(e exception, counter bool) (v float64, ok bool) {
	switch e.op {
	case opRaw:
		st.den = 0
		return math.Float64frombits(uint64(e.a)), true
	case OpAbsolute:
		*st = valueState{den: e.a, last: e.b, ulps: e.c != 0, at: ratio(e.b, e.a), counter: st.counter}
		return withUlps(st.at, e.c), true
	case opOffset:
		if st.den == 0 {
			return 0, false
		}
		st.ulps = true
		return st.predicted(e.a, e.b, counter), true
	}
	return math.NaN(), true
}

// quiet says the key's next residual is read at k = 0 and has no ulps
// after it: a 0 bit is a residual of 0 (readValues' quick path).
func (st *valueState) quiet() bool {
	return st.den != 0 && !st.ulps && (st.rice.n == 0 || st.rice.sum <= st.rice.n)
}

// decodeValue reads a residual from br (the value is no exception).
// ok is false if the key has no denominator to add it to.
func (st *valueState) decodeValue(br *bitReader, counter bool) (v float64, ok bool) {
	if st.den == 0 {
		return 0, false // a residual needs a denominator set by an absolute value
	}
	k := st.rice.k()
	var u uint64
	if k == 0 && br.n > 0 && br.acc>>(br.n-1)&1 == 0 {
		br.n-- // a residual of 0 at k = 0, one bit: most values of a quiet key
	} else {
		u = br.rice(k)
	}
	st.rice.addAt(u, k)
	var ulps int64
	if st.ulps {
		ulps = unzigzag(br.gamma())
	}
	return st.predicted(unzigzag(u), ulps, counter), true
}

func (st *valueState) predicted(r, ulps int64, counter bool) float64 {
	if counter {
		r += st.step // the residual is against last + step
	}
	st.step = r // as advance(predict(counter) + r)
	if r != 0 {
		st.last += r
		st.at = ratio(st.last, st.den)
	}
	return withUlps(st.at, ulps)
}

// withUlps is q moved by ulps units in the last place.
func withUlps(q float64, ulps int64) float64 {
	return math.Float64frombits(uint64(int64(math.Float64bits(q)) + ulps))
}

// appendLoneValue appends a value with no state to predict from (a process
// field): uvarint d; 0 the canonical NaN, 1 raw 8 bytes, d ≥ 2 n/(d−1)
// with varint n and varint ulps.
func appendLoneValue(b []byte, v float64) []byte {
	if math.Float64bits(v) == canonicalNaN {
		return append(b, 0)
	}
	if den, n, ulps, ok := bestDenominator(v); ok {
		b = binary.AppendUvarint(b, uint64(den)+1)
		b = binary.AppendVarint(b, n)
		return binary.AppendVarint(b, ulps)
	}
	b = append(b, 1)
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
}

func readLoneValue(c *cursor) float64 {
	switch d := c.uvarint(); d {
	case 0:
		return math.NaN()
	case 1:
		return math.Float64frombits(c.uint64())
	default:
		n := c.varint()
		ulps := c.varint()
		if d-1 > math.MaxInt64 {
			c.fail()
			return 0
		}
		return withUlps(ratio(n, int64(d-1)), ulps)
	}
}

func zigzag(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }
