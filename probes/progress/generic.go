package progress

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strings"
)

// parseGeneric reads a log line that is not a bar: a rate with a unit of
// work ("12,345 tokens/s", "tok/s: 12345", "samples/sec=98.2", "img/s
// 512"), and a count of steps ("step 400", "iter 100: loss 4.2", "Step
// [100/600]", "global_step=2000"). A line with both in different units
// ("step 100 | 45,000 tok/s") is read as its rate.
func parseGeneric(l []byte) (Reading, bool) {
	r := nan(streamRate, "")
	if t, ok := findRate(l, 0); ok && !t.unknown {
		r.Rate, r.Unit = t.rate, t.unit
	} else if v, unit, ok := rateAfterUnit(l); ok {
		r.Rate, r.Unit = v, unit
	}
	count, unit, ok := stepCount(l)
	if ok && (r.Unit == "" || r.Unit == unit) {
		r.Stream, r.Count, r.Unit = streamStep, count, unit
		if unit == "iter" {
			r.Stream = streamIter
		}
	}
	return r, r.Unit != ""
}

// rateAfterUnit reads "tok/s: 12345", "samples/sec = 98.2", "img/s 512".
func rateAfterUnit(l []byte) (float64, string, bool) {
	for i := 0; i < len(l); i++ {
		k := bytes.IndexByte(l[i:], '/')
		if k < 0 {
			break
		}
		i += k
		ls := i
		for ls > 0 && isLetter(l[ls-1]) {
			ls--
		}
		re := i + 1
		for re < len(l) && isLetter(l[re]) {
			re++
		}
		unit, known := unitName(l[ls:i])
		if !known || !perSecond(l[i+1:re]) {
			continue
		}
		j := re
		for j < len(l) && (l[j] == ' ' || l[j] == ':' || l[j] == '=') {
			j++
		}
		v, n := parseGrouped(l[j:min(len(l), j+32)])
		if n == 0 {
			v, n = parseNumber(l[j:])
		}
		if n > 0 {
			return v, unit, true
		}
	}
	return 0, "", false
}

// stepCount reads "step 400", "Step [100/600]", "iter 100:",
// "iteration=7", "global_step=2000": the word, then ' ', ':', '=', '#' or
// '[', then the number.
func stepCount(l []byte) (float64, string, bool) {
	for i := 0; i+4 <= len(l); i++ {
		c := l[i] | 0x20
		if c != 's' && c != 'i' {
			continue
		}
		var unit string
		n := 0
		switch {
		case hasWordAt(l, i, "step"):
			unit, n = "step", 4
		case hasWordAt(l, i, "iteration"):
			unit, n = "iter", 9
		case hasWordAt(l, i, "iter"):
			unit, n = "iter", 4
		default:
			continue
		}
		if i > 0 && (isLetter(l[i-1]) || isDigit(l[i-1]) || l[i-1] == '/') {
			continue // "misstep", "ms/step"
		}
		j := i + n
		for j < len(l) && (l[j] == ' ' || l[j] == ':' || l[j] == '=' || l[j] == '#' || l[j] == '[') {
			j++
		}
		if j == i+n {
			continue // "steps", "step400"
		}
		v, took := parseNumber(l[j:])
		if took == 0 {
			continue
		}
		if k := j + took; k < len(l) && (l[k] == '%' || isLetter(l[k])) {
			continue // "step 5%", "iter 3x"
		}
		return v, unit, true
	}
	return 0, "", false
}

// hasWordAt says whether l has word at i, any case, not followed by a letter.
func hasWordAt(l []byte, i int, word string) bool {
	if i+len(word) > len(l) {
		return false
	}
	for k := 0; k < len(word); k++ {
		if l[i+k]|0x20 != word[k] {
			return false
		}
	}
	return i+len(word) == len(l) || !isLetter(l[i+len(word)])
}

// CustomPattern is a --progress-regex: a regular expression with named
// groups "count" and/or "rate", and optionally "total" and "unit".
type CustomPattern struct{ re customRegex }

type customRegex struct {
	re                      *regexp.Regexp
	count, rate, total, unt int // group indexes, -1 if absent
	unit                    string
}

// NewCustom compiles a --progress-regex. It needs a group named count or
// rate; unit names the unit where the pattern has no group named unit
// ("it" if empty).
func NewCustom(expr, unit string) (*CustomPattern, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	c := customRegex{re: re, count: re.SubexpIndex("count"), rate: re.SubexpIndex("rate"),
		total: re.SubexpIndex("total"), unt: re.SubexpIndex("unit"), unit: unit}
	if c.count < 0 && c.rate < 0 {
		return nil, fmt.Errorf("it has no group named count or rate, such as (?P<count>\\d+)")
	}
	if c.unit == "" {
		c.unit = "it"
	}
	return &CustomPattern{re: c}, nil
}

// streamCustom is the stream of the user's pattern.
const streamCustom uint64 = 99

func (c *customRegex) parse(l []byte) (Reading, bool) {
	m := c.re.FindSubmatchIndex(l)
	if m == nil {
		return Reading{}, false
	}
	group := func(i int) float64 {
		if i < 0 || m[2*i] < 0 {
			return math.NaN()
		}
		g := l[m[2*i]:m[2*i+1]]
		v, n := parseGrouped(g)
		if n == 0 || n != len(g) {
			return math.NaN()
		}
		return v
	}
	r := nan(streamCustom, c.unit)
	r.Count, r.Rate, r.Total = group(c.count), group(c.rate), group(c.total)
	if c.unt >= 0 && m[2*c.unt] >= 0 {
		if u := strings.TrimSpace(string(l[m[2*c.unt]:m[2*c.unt+1]])); u != "" && len(u) <= 16 && isWord(u) {
			r.Unit = u
		}
	}
	return r, valid(r.Count) || valid(r.Rate)
}

// isWord says whether s is letters only: a unit's name from the job.
func isWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isLetter(s[i]) {
			return false
		}
	}
	return true
}
