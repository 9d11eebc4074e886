package progress

import (
	"bytes"
	"math"
)

// rateToken is a rate a line states: "50.00it/s", "1.23kit/s", "?it/s",
// "2.50s/it" (tqdm's, inverted below one a second), "24ms/step" (Keras'
// time per step), "12,345 tokens/s".
type rateToken struct {
	start, end int // where it is in the line
	rate       float64
	unit       string
	unknown    bool // "?it/s": tqdm before its first rate
	spaced     bool // a space between the number and the unit ("12 tok/s")
}

// findRate finds the first rate in l whose unit is one a job counts work
// in (units), from byte from on.
func findRate(l []byte, from int) (rateToken, bool) {
	for i := from; i < len(l); i++ {
		k := bytes.IndexByte(l[i:], '/')
		if k < 0 {
			break
		}
		i += k
		// Letters on both sides: the unit before, "s" (or "sec") after,
		// or a time unit before and the work unit after.
		ls := i
		for ls > 0 && (isLetter(l[ls-1]) || l[ls-1] == 0xb5 && ls > 1 && l[ls-2] == 0xc2) {
			if l[ls-1] == 0xb5 {
				ls-- // µ is two bytes
			}
			ls--
		}
		re := i + 1
		for re < len(l) && isLetter(l[re]) {
			re++
		}
		if ls == i || re == i+1 {
			continue
		}
		left, right := l[ls:i], l[i+1:re]
		if re < len(l) && isDigit(l[re]) {
			continue // "s/it2": not a unit
		}
		if perSecond(right) {
			if t, ok := forwardRate(l, ls, i, re, left); ok {
				return t, true
			}
			continue
		}
		if scale, ok := timeUnit(left); ok {
			v, start, ok := numberBefore(l, ls)
			if !ok || v <= 0 {
				continue
			}
			unit, known := unitName(right)
			if !known {
				continue
			}
			return rateToken{start: start, end: re, rate: 1 / (v * scale), unit: unit}, true
		}
	}
	return rateToken{}, false
}

// forwardRate reads "<number><unit>/s": tqdm's "50.00it/s", with its SI
// prefix "1.23kit/s", unknown "?it/s", or spaced "12,345 tokens/s".
func forwardRate(l []byte, ls, slash, re int, left []byte) (rateToken, bool) {
	unit, known := unitName(left)
	scale := 1.0
	if !known && len(left) > 1 {
		if s := siPrefix(left[0]); s > 0 {
			if unit, known = unitName(left[1:]); known {
				scale = s
			}
		}
	}
	if !known {
		return rateToken{}, false
	}
	if ls > 0 && l[ls-1] == '?' {
		return rateToken{start: ls - 1, end: re, rate: math.NaN(), unit: unit, unknown: true}, true
	}
	end, spaced := ls, false
	if end > 0 && l[end-1] == ' ' {
		end--
		spaced = true
	}
	v, start, ok := numberBefore(l, end)
	if !ok {
		return rateToken{}, false
	}
	return rateToken{start: start, end: re, rate: v * scale, unit: unit, spaced: spaced}, true
}

// perSecond says whether a unit's denominator is a second.
func perSecond(b []byte) bool {
	return string(b) == "s" || string(b) == "sec" || string(b) == "second"
}

// timeUnit is the seconds in the time unit of a per-unit time: "s", "ms",
// "us", "µs".
func timeUnit(b []byte) (float64, bool) {
	switch string(b) {
	case "s":
		return 1, true
	case "ms":
		return 1e-3, true
	case "us", "µs":
		return 1e-6, true
	}
	return 0, false
}

// siPrefix is the factor of tqdm's unit_scale prefixes, 0 for another byte.
func siPrefix(c byte) float64 {
	switch c {
	case 'k':
		return 1e3
	case 'M':
		return 1e6
	case 'G':
		return 1e9
	case 'T':
		return 1e12
	}
	return 0
}

// unitName is the unit of work a name names, singular, and whether it is
// one: bytes ("MB/s" of a download bar) and times are not work.
func unitName(b []byte) (string, bool) {
	switch string(b) {
	case "it", "its":
		return "it", true
	case "step", "steps":
		return "step", true
	case "sample", "samples":
		return "sample", true
	case "token", "tokens":
		return "token", true
	case "tok", "toks":
		return "tok", true
	case "img", "imgs":
		return "img", true
	case "image", "images":
		return "image", true
	case "example", "examples", "ex":
		return "example", true
	case "seq", "seqs":
		return "seq", true
	case "sequence", "sequences":
		return "sequence", true
	case "batch", "batches":
		return "batch", true
	case "frame", "frames":
		return "frame", true
	case "word", "words":
		return "word", true
	case "epoch", "epochs":
		return "epoch", true
	}
	return "", false
}

// parseBar reads a progress bar: tqdm's "Epoch 3:  45%|████▌ | 450/1000
// [00:09<00:11, 50.00it/s, loss=0.1]" (Lightning's bar is tqdm's), or
// without a total "123it [00:01, 98.45it/s]"; Rich's "Epoch 0/9 ━━━━
// 450/1000 0:00:09 • 0:00:11 50.00it/s" (Lightning's RichProgressBar);
// Keras' "123/500 [=====>....] - ETA: 10s - loss: 0.3" and "500/500
// ━━━━━━━━ 12s 24ms/step - loss: 0.3". A line is a bar when it has a
// "N/M" count and one of a bar's marks (an elapsed time in brackets, a
// "%|", a Keras bar, a line of box drawing), or tqdm's count with a unit
// before its elapsed time.
func parseBar(l []byte) (Reading, bool) {
	rate, hasRate := findRate(l, 0)
	if !hasRate && foreignRate(l) {
		return Reading{}, false // a download's "50.0MB/s": not work
	}
	limit := len(l)
	if hasRate {
		limit = rate.start
	}
	count, total, cs, ok := lastCount(l[:limit])
	unit := rate.unit
	if !ok {
		// tqdm without a total: "123it [00:01, 98.45it/s]".
		c, at, u, ok := countWithUnit(l)
		if !ok {
			return Reading{}, false
		}
		r := nan(barStream(l[:at], math.NaN()), u)
		r.Count = c
		if hasRate && rate.unit == u {
			r.Rate = rate.rate
		}
		return r, true
	}
	keras := isKerasBar(l[cs:])
	if !keras && !hasBarMark(l) {
		return Reading{}, false
	}
	if !hasRate {
		unit = "it"
		if keras {
			unit = "step"
		}
	}
	r := nan(barStream(l[:cs], total), unit)
	r.Count, r.Total = count, total
	if hasRate && !rate.unknown {
		r.Rate = rate.rate
	}
	return r, true
}

// lastCount finds the last "N/M" in l (counts may carry tqdm's SI prefix:
// "1.2k/10.0k"): the bar's position and length, and where N starts.
func lastCount(l []byte) (count, total float64, start int, ok bool) {
	for i := len(l) - 1; i > 0; i-- {
		if l[i] != '/' || i+1 >= len(l) || !isDigit(l[i+1]) {
			continue
		}
		end := i
		scale := 1.0
		if s := siPrefix(l[end-1]); s > 0 {
			scale, end = s, end-1
		}
		c, cs, cok := numberBefore(l, end)
		if !cok || cs > 0 && (isLetter(l[cs-1]) || l[cs-1] == '/' || l[cs-1] == ':') {
			continue // "v2/3", a date, a time
		}
		t, n := parseNumber(l[i+1:])
		j := i + 1 + n
		if j < len(l) && siPrefix(l[j]) > 0 {
			t *= siPrefix(l[j])
			j++
		}
		if j < len(l) && (isLetter(l[j]) || l[j] == '/' || isDigit(l[j])) {
			continue
		}
		return c * scale, t, cs, true
	}
	return 0, 0, 0, false
}

// countWithUnit finds tqdm's count without a total, "123it [00:01, …]" or
// "1.23kit [00:01, …]": a number and a unit right before " [" and an
// elapsed time.
func countWithUnit(l []byte) (float64, int, string, bool) {
	i := bytes.Index(l, []byte(" ["))
	for ; i >= 0; i = nextIndex(l, i+2, " [") {
		if !elapsedAt(l[i+2:]) {
			continue
		}
		ue := i
		us := ue
		for us > 0 && isLetter(l[us-1]) {
			us--
		}
		if us == ue {
			continue
		}
		word := l[us:ue]
		scale := 1.0
		unit, known := unitName(word)
		if !known && len(word) > 1 && siPrefix(word[0]) > 0 {
			if unit, known = unitName(word[1:]); known {
				scale = siPrefix(word[0])
			}
		}
		if !known {
			continue
		}
		v, start, ok := numberBefore(l, us)
		if !ok {
			continue
		}
		return v * scale, start, unit, true
	}
	return 0, 0, "", false
}

func nextIndex(l []byte, from int, sep string) int {
	if from >= len(l) {
		return -1
	}
	i := bytes.Index(l[from:], []byte(sep))
	if i < 0 {
		return -1
	}
	return from + i
}

// elapsedAt says whether b starts with a time such as "00:09" or "1:02:03".
func elapsedAt(b []byte) bool {
	i := 0
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i > 0 && i+2 < len(b) && b[i] == ':' && isDigit(b[i+1]) && isDigit(b[i+2])
}

// hasBarMark says whether l has one of a bar's marks: "%|", an elapsed
// time after "[" (tqdm), or box drawing (Rich, Keras 3).
func hasBarMark(l []byte) bool {
	if bytes.Contains(l, []byte("%|")) || bytes.Contains(l, []byte("━")) || bytes.Contains(l, []byte("•")) {
		return true
	}
	for i := bytes.IndexByte(l, '['); i >= 0; i = nextIndex(l, i+1, "[") {
		if elapsedAt(l[i+1:]) {
			return true
		}
	}
	return false
}

// isKerasBar says whether the count at the start of b is followed by a
// Keras bar: "[=====>....]" or "━━━━".
func isKerasBar(b []byte) bool {
	i := bytes.IndexByte(b, ' ')
	if i < 0 {
		return false
	}
	rest := b[i+1:]
	return len(rest) > 1 && rest[0] == '[' && (rest[1] == '=' || rest[1] == '.' || rest[1] == '>') ||
		bytes.HasPrefix(rest, []byte("━"))
}

// barStream is a bar's stream: the letters of its description and its total.
func barStream(desc []byte, total float64) uint64 {
	h := uint64(14695981039346656037) // FNV-1a
	for _, c := range desc {
		if isLetter(c) {
			h ^= uint64(c)
			h *= 1099511628211
		}
	}
	if !math.IsNaN(total) {
		h ^= math.Float64bits(total)
		h *= 1099511628211
	}
	return h | 1<<63 // apart from the kinds of line
}

// foreignRate says whether l states a rate in something other than work:
// "50.0MB/s", "1.2GB/s".
func foreignRate(l []byte) bool {
	for i := bytes.Index(l, []byte("/s")); i >= 0; i = nextIndex(l, i+2, "/s") {
		if i > 0 && isLetter(l[i-1]) {
			return true
		}
	}
	return false
}
