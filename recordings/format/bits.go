package format

import (
	"encoding/binary"
	"math/bits"
)

// bitWriter packs bits most significant first into bytes.
type bitWriter struct {
	b   []byte
	acc uint64 // the last n bits are pending
	n   uint
}

// write appends the low n bits of v, n ≤ 32.
func (w *bitWriter) write(v uint64, n uint) {
	w.acc = w.acc<<n | v&(1<<n-1)
	w.n += n
	for w.n >= 8 {
		w.n -= 8
		w.b = append(w.b, byte(w.acc>>w.n))
	}
}

func (w *bitWriter) write64(v uint64, n uint) {
	if n > 32 {
		w.write(v>>32, n-32)
		n = 32
	}
	w.write(v, n)
}

// bytes pads the bits to a whole byte with zeros and returns them.
func (w *bitWriter) bytes() []byte {
	if w.n > 0 {
		w.write(0, 8-w.n)
	}
	return w.b
}

// bitReader reads what bitWriter wrote. Reading past the end sets short.
type bitReader struct {
	b     []byte
	acc   uint64
	n     uint
	short bool
}

// read returns the next n bits, n ≤ 32.
func (r *bitReader) read(n uint) uint64 {
	if r.n < n {
		r.refill()
		if r.n < n {
			r.short = true
			return 0
		}
	}
	r.n -= n
	return r.acc >> r.n & (1<<n - 1)
}

// rest is what follows the bits read, whose last byte is padding: the
// bytes refill took ahead and did not use are given back.
func (r *bitReader) rest(from []byte) []byte {
	return from[len(from)-len(r.b)-int(r.n/8):]
}

// refill takes as many whole bytes as acc has room for: 8 at a time where
// they are there, so that a value of a few bits rarely waits for a byte.
func (r *bitReader) refill() {
	if len(r.b) >= 8 {
		take := (64 - r.n) / 8 // ≤ 8; at 8 acc is all new
		v := binary.BigEndian.Uint64(r.b)
		if take == 8 {
			r.acc = v
		} else {
			r.acc = r.acc<<(take*8) | v>>(64-take*8)
		}
		r.b = r.b[take:]
		r.n += take * 8
		return
	}
	for r.n <= 56 && len(r.b) > 0 {
		r.acc = r.acc<<8 | uint64(r.b[0])
		r.b = r.b[1:]
		r.n += 8
	}
}

func (r *bitReader) read64(n uint) uint64 {
	if n > 32 {
		hi := r.read(n - 32)
		return hi<<32 | r.read(32)
	}
	return r.read(n)
}

// ones counts 1 bits up to the next 0, which it consumes, or up to max
// 1s, after which it stops.
func (r *bitReader) ones(max uint) uint {
	count := uint(0)
	for count < max {
		if r.n == 0 {
			if r.refill(); r.n == 0 {
				r.short = true
				return count
			}
		}
		// The pending bits, moved to the top: count their leading ones.
		lead := uint(bits.LeadingZeros64(^(r.acc << (64 - r.n))))
		take := min(lead, max-count)
		count += take
		r.n -= take
		if count == max {
			return count
		}
		if r.n > 0 {
			r.n-- // the 0 that ends the run
			return count
		}
		// Every pending bit was a 1: read on.
	}
	return count
}

// The Rice code of an unsigned number u with parameter k: u>>k in unary
// (that many 1s, then a 0), then the low k bits of u. It is near the best
// code for the residuals of noisy measurements, whose size is geometric,
// when k is near log2 of their mean. Each key keeps a running mean, so k
// follows its own noise: a constant costs 1 bit, a reading that jitters by
// ±20 W in milliwatts about 17.
//
// A quotient of riceEscape or more (a jump: a value far outside the key's
// usual noise) is written as riceEscape 1s, then the bit length of u in 6
// bits, then u's bits below its leading 1.
const riceEscape = 16

// riceStats is a key's running mean of residual sizes: sum/n, halved every
// 16 values so it follows changes in noise (the scheme of LOCO-I, the
// lossless JPEG). A value that had to escape counts as if it were at the
// escape threshold: a rare jump (memory allocated at a phase change) then
// does not make the next few dozen quiet values pay for it.
type riceStats struct {
	sum uint64
	n   uint64
}

// k is the smallest k with n·2^k ≥ sum: log2 of the mean, rounded up, at
// most 58 (a writer's residuals stay below 2^57).
func (s *riceStats) k() uint {
	if s.n == 0 || s.sum <= s.n {
		return 0
	}
	// Without dividing (a value of a day's 50 million asks twice): n·2^k
	// is as long as sum at k = len(sum)−len(n), so that k or the next.
	k := uint(bits.Len64(s.sum) - bits.Len64(s.n))
	if s.n<<k < s.sum {
		k++
	}
	return min(k, 58)
}

func (s *riceStats) add(u uint64) { s.addAt(u, s.k()) }

// addAt is add where k is s.k(), known already.
func (s *riceStats) addAt(u uint64, k uint) {
	// Saturating, so that no input, however wrong, overflows the sum.
	s.sum = min(s.sum+min(u, riceEscape<<k), 1<<62)
	s.n++
	if s.n == 16 {
		s.sum >>= 1
		s.n >>= 1
	}
}

func (w *bitWriter) rice(u uint64, k uint) {
	if q := u >> k; q < riceEscape {
		w.write(1<<(q+1)-2, uint(q)+1) // q ones and a zero
		w.write64(u, k)
		return
	}
	w.write(1<<riceEscape-1, riceEscape)
	n := uint(bits.Len64(u)) // ≥ 1: u ≥ riceEscape here
	w.write(uint64(n-1), 6)
	w.write64(u, n-1)
}

func (r *bitReader) rice(k uint) uint64 {
	// The usual case at once: the whole code is in acc (after a refill
	// where it runs low), so the 1s are counted and the low bits taken
	// with one shift each, not bit reader calls of their own.
	if r.n < 48 {
		r.refill()
	}
	if r.n > 0 {
		q := uint(bits.LeadingZeros64(^(r.acc << (64 - r.n))))
		if q < riceEscape && q+1+k <= r.n {
			r.n -= q + 1 + k
			return uint64(q)<<k | r.acc>>r.n&(1<<k-1)
		}
	}
	if q := r.ones(riceEscape); q < riceEscape {
		return uint64(q)<<k | r.read64(k)
	}
	n := uint(r.read(6)) + 1
	return 1<<(n-1) | r.read64(n-1)
}

// gamma writes u+1 in Elias gamma code: small numbers (an ulp offset of
// 0 or ±1) cost 1 or 3 bits.
func (w *bitWriter) gamma(u uint64) {
	u++
	n := uint(bits.Len64(u))
	w.write(0, n-1)
	w.write64(u, n)
}

func (r *bitReader) gamma() uint64 {
	zeros := uint(0)
	for r.read(1) == 0 {
		if r.short || zeros == 63 {
			r.short = true
			return 0
		}
		zeros++
	}
	return (1<<zeros | r.read64(zeros)) - 1
}
