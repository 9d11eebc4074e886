package demo

import (
	"hash/fnv"
	"math"
)

// noise is the demo's randomness: a stateless hash of (seed, stream, device,
// index) mapped to [0, 1). A value depends only on where it is asked for,
// never on the order of asking, so GPUs read from concurrent goroutines, a
// FastClock and a real clock all see the same script.
type noise struct{ seed uint64 }

// stream names one independent source of noise ("training/dip-start"), so
// that two uses of noise in a script never share values by accident.
type stream uint64

func streamOf(name string) stream {
	h := fnv.New64a()
	h.Write([]byte(name)) // hash.Hash's Write never returns an error
	return stream(h.Sum64())
}

// mix is splitmix64's finaliser: every input bit affects every output bit.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// u is uniform in [0, 1) for (s, dev, i). dev is a GPU or core index, or 0
// for values every device shares (a step boundary all ranks hit together).
func (n noise) u(s stream, dev int, i int64) float64 {
	h := mix(n.seed ^ mix(uint64(s)))
	h = mix(h ^ uint64(dev+1)*0x9e3779b97f4a7c15)
	h = mix(h ^ uint64(i)*0xd1b54a32d192ed03)
	return float64(h>>11) / (1 << 53)
}

// between is uniform in [lo, hi).
func (n noise) between(lo, hi float64, s stream, dev int, i int64) float64 {
	return lo + (hi-lo)*n.u(s, dev, i)
}

// smooth is noise that drifts instead of jumping: u at knots period seconds
// apart, eased between them with a cosine, in [0, 1). Power and SM activity
// wander like this over tens of seconds on a real GPU.
func (n noise) smooth(s stream, dev int, t, period float64) float64 {
	x := t / period
	i := math.Floor(x)
	f := (1 - math.Cos((x-i)*math.Pi)) / 2
	a := n.u(s, dev, int64(i))
	b := n.u(s, dev, int64(i)+1)
	return a + (b-a)*f
}

// wobble is smooth noise in [-1, 1).
func (n noise) wobble(s stream, dev int, t, period float64) float64 {
	return 2*n.smooth(s, dev, t, period) - 1
}

// newNoise turns the user's seed into the noise seed, mixed so that seeds 1
// and 2 give unrelated demos.
func newNoise(seed int64) noise { return noise{seed: mix(uint64(seed) + 0x6a09e667f3bcc909)} }
