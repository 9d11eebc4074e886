package nvidia

import (
	"encoding/binary"
	"math"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// firstTickWindow is how far back the first GetSamples of a GPU looks, in
// µs. With lastSeen 0 NVML returns its whole buffer (several seconds, from
// before gputop started); the first tick keeps only the newest second of it,
// one default interval, so it summarises roughly what the next ticks will.
const firstTickWindow = 1_000_000

// sampleSummary is what one tick keeps of NVML's utilisation samples.
type sampleSummary struct {
	count          int // samples used; 0 means none (fall back)
	mean, min, max float64
	newest         uint64 // newest timestamp returned, µs: the next lastSeen
	// oldest is the oldest timestamp returned newer than lastSeen, and
	// lastSeen what it was asked with: a gap between them of more than a
	// few sample periods means the driver's buffer wrapped between reads.
	oldest, lastSeen uint64
}

// summarizeSamples keeps the samples newer than lastSeen (NVML should return
// no others, but a buffer that wrapped may), decodes each by its value type,
// drops values outside 0..100, and gives their count, mean, min and max.
// newest covers every sample returned, used or not, so none is read twice.
func summarizeSamples(vt nvml.ValueType, samples []nvml.Sample, lastSeen uint64) sampleSummary {
	s := sampleSummary{mean: math.NaN(), min: math.NaN(), max: math.NaN(), lastSeen: lastSeen}
	for _, x := range samples {
		s.newest = max(s.newest, x.TimeStamp)
		if x.TimeStamp > lastSeen && (s.oldest == 0 || x.TimeStamp < s.oldest) {
			s.oldest = x.TimeStamp
		}
	}
	since := lastSeen
	if lastSeen == 0 && s.newest > firstTickWindow {
		since = s.newest - firstTickWindow
	}
	sum := 0.0
	for _, x := range samples {
		if x.TimeStamp <= since {
			continue
		}
		v, ok := decodeValue(vt, x.SampleValue)
		if !ok || v < 0 || v > 100 {
			continue
		}
		if s.count == 0 {
			s.min, s.max = v, v
		}
		s.min, s.max = min(s.min, v), max(s.max, v)
		sum += v
		s.count++
	}
	if s.count > 0 {
		// To 0.01 %: the samples are whole percents, and a mean like
		// 97.333… would cost a recording 8 bytes for digits that mean nothing.
		// A driver that gives doubles could see the rounding pass its min or
		// max (16.1882 rounds to 16.19): the mean stays between them.
		s.mean = min(max(math.Round(sum/float64(s.count)*100)/100, s.min), s.max)
	}
	return s
}

// wrapGap is the gap between the last sample read and the oldest returned
// that says samples were lost: five of an H100's 200 ms periods.
const wrapGap = 1_000_000

// noteWrapped notes once that a GPU's samples came too far apart for the
// driver's buffer (a tick held up for seconds): some were lost.
func (g *gpuProbe) noteWrapped(s sampleSummary) {
	if s.lastSeen > 0 && s.oldest > s.lastSeen+wrapGap {
		g.n.note("%s: utilization samples: the driver's buffer wrapped between two reads, and a second or more of them was lost", g.device)
	}
}

// decodeValue reads NVML's value union (nvmlValue_t) as the type NVML says
// it holds. The union is in the machine's byte order; unsigned long is 64
// bits on the 64-bit Linux that NVML supports. ok is false for an unknown
// type and for a double that is not a finite number.
func decodeValue(vt nvml.ValueType, b [8]byte) (v float64, ok bool) {
	e := binary.NativeEndian
	switch vt {
	case nvml.VALUE_TYPE_DOUBLE:
		v = math.Float64frombits(e.Uint64(b[:]))
		return v, !math.IsNaN(v) && !math.IsInf(v, 0)
	case nvml.VALUE_TYPE_UNSIGNED_INT:
		return float64(e.Uint32(b[:4])), true
	case nvml.VALUE_TYPE_UNSIGNED_LONG, nvml.VALUE_TYPE_UNSIGNED_LONG_LONG:
		return float64(e.Uint64(b[:])), true
	case nvml.VALUE_TYPE_SIGNED_LONG_LONG:
		return float64(int64(e.Uint64(b[:]))), true
	case nvml.VALUE_TYPE_SIGNED_INT:
		return float64(int32(e.Uint32(b[:4]))), true
	case nvml.VALUE_TYPE_UNSIGNED_SHORT:
		return float64(e.Uint16(b[:2])), true
	}
	return math.NaN(), false
}
