package prom

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// Reading the answers of Prometheus' HTTP API (/api/v1/query_range, and
// /api/v1/query's instant vectors):
//
//	{"status":"success","data":{"resultType":"matrix","result":[
//	  {"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0",…},
//	   "values":[[1764057600,"97"],[1764057615,"98"],…]}]}}
//	{"status":"error","errorType":"bad_data","error":"1:9: parse error: …"}
//
// A day of 64 GPUs is 130 MB of this, nearly all of it points. A parser of
// its own reads each byte once and keeps the points as two flat slices;
// encoding/json scanned every answer twice before a single point was read,
// half of an import's time. Keys it does not know are skipped, in any
// order; everything it reads is checked as JSON.

// promAnswer is one answer.
type promAnswer struct {
	Status    string
	ErrorType string
	Error     string
	Data      struct {
		ResultType string
		Result     []promSeriesJSON
	}
	// points are the points kept of all its series; outside those left
	// out for lying outside the range asked (jsonParser.win), with those
	// of series left out whole for it.
	points, outside int
}

// promSeriesJSON is one series of a matrix (values) or of a vector (value).
type promSeriesJSON struct {
	Metric map[string]string
	Values promPoints
	Value  promPoints
}

// promPoints are a series' points: times in Unix milliseconds (Prometheus'
// resolution) and values. A point whose value is NaN or infinite is left
// out, a gap like any other; skipped counts them.
type promPoints struct {
	times   pointTimes
	vals    pointVals
	skipped int
	outside int // outside the range asked: left out
}

// err is an answer that could not be read, or Prometheus' own error.
func (a *promAnswer) err() error {
	switch a.Status {
	case "success":
	case "error":
		// Its words, made safe for a terminal: a server's text may carry
		// escape sequences.
		if a.ErrorType != "" {
			return fmt.Errorf("Prometheus says %s: %s", serverText(a.ErrorType), serverText(a.Error))
		}
		return fmt.Errorf("Prometheus says: %s", serverText(a.Error))
	case "":
		return errors.New(`not an answer of Prometheus' HTTP API (no "status")`)
	default:
		return fmt.Errorf("not an answer of Prometheus' HTTP API (status %q)", serverText(a.Status))
	}
	switch a.Data.ResultType {
	case "matrix", "vector":
		return nil
	case "":
		return errors.New("Prometheus' answer has no data")
	default:
		return fmt.Errorf("Prometheus' answer is a %s, not series over time (query_range gives a matrix)", serverText(a.Data.ResultType))
	}
}

// decodeAnswers reads saved answers: one, several written one after
// another (as `curl … >> answers.json` leaves them), or a JSON array of
// them, one answer at a time (splitAnswers), each at most maxAnswerBytes;
// and calls each for every one in order. It stops at the first that cannot
// be read or that is an error.
func decodeAnswers(r io.Reader, each func(*promAnswer) error) error {
	n := 0
	err := splitAnswers(r, maxAnswerBytes, func(text []byte) error {
		p := jsonParser{b: text}
		if err := p.one(n, each); err != nil {
			return err
		}
		if p.space(); p.i < len(p.b) {
			return jsonError(p.syntax("after an answer"), n)
		}
		n++
		return nil
	})
	switch {
	case errors.As(err, new(errAnswerTooLarge)):
		return fmt.Errorf("answer %d %v: it is not an answer gputop can read whole", n+1, err)
	case err != nil:
		return err
	case n == 0:
		return errors.New("no Prometheus answer in it (it is empty)")
	}
	return nil
}

// decodeAnswerBytes is decodeAnswers for answers already read (an HTTP
// answer, read under its limit).
func decodeAnswerBytes(b []byte, win *pointWindow, each func(*promAnswer) error) error {
	p := jsonParser{b: b, win: win}
	n := 0
	for {
		p.space()
		if p.i == len(b) {
			if n == 0 {
				return errors.New("no Prometheus answer in it (it is empty)")
			}
			return nil
		}
		// An answer, or a list of them.
		list := p.take('[')
		if list && p.take(']') {
			continue
		}
		for {
			if err := p.one(n, each); err != nil {
				return err
			}
			n++
			if !list || p.take(']') {
				break
			}
			if !p.take(',') {
				return jsonError(p.syntax("after an answer in a list"), n)
			}
		}
	}
}

// one reads answer number n (from 0) and gives it to each, unless it
// cannot be read or is an error.
func (p *jsonParser) one(n int, each func(*promAnswer) error) error {
	a, err := p.answer()
	if err != nil {
		return jsonError(err, n)
	}
	if err := a.err(); err != nil {
		if n > 0 {
			return fmt.Errorf("answer %d: %w", n+1, err)
		}
		return err
	}
	return each(a)
}

// errShape is JSON that is not the shape of Prometheus' answers.
type errShape struct{ what string }

func (e errShape) Error() string { return e.what }

// jsonError says which answer could not be read.
func jsonError(err error, n int) error {
	if errors.As(err, new(errShape)) {
		return err
	}
	if n > 0 {
		return fmt.Errorf("answer %d is not Prometheus' JSON: %v", n+1, err)
	}
	return fmt.Errorf("not Prometheus' JSON: %v", err)
}

// jsonParser reads JSON from b at i.
type jsonParser struct {
	b     []byte
	i     int
	depth int
	// kept and outside are the answer's so far (promAnswer's points and
	// outside).
	kept, outside int
	// win, where set, is the range a query asked for: Prometheus answers
	// a query_range within it, so points outside it (a server answering
	// a year before --from) are left out as they are read and counted,
	// never kept.
	win *pointWindow
	// vals holds the values of the series being read, so that they are
	// then kept at their count, found without looking ahead in the text
	// (a look for the list's end per series was quadratic in an answer
	// without "]]", as `jq .` writes one).
	vals []float64
}

// pointWindow is a query's range, in Unix ms, and the most points a series
// of its answer can have in it: one per step.
type pointWindow struct {
	from, to int64
	most     int
}

// maxDepth bounds nesting in values skipped: Prometheus' answers nest four
// deep.
const maxDepth = 100

var errEnds = errors.New("it ends in the middle")

func (p *jsonParser) syntax(where string) error {
	if p.i >= len(p.b) {
		return errEnds
	}
	return fmt.Errorf("unexpected %q %s, at byte %d", p.b[p.i], where, p.i)
}

func (p *jsonParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// take skips spaces and then c, if c is next.
func (p *jsonParser) take(c byte) bool {
	p.space()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *jsonParser) peek() byte {
	p.space()
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

// object reads {"key": value, …}, calling field with each key, which must
// read the value.
func (p *jsonParser) object(where string, field func(key string) error) error {
	return p.items('{', '}', where, func() error {
		key, err := p.str()
		if err != nil {
			return err
		}
		if !p.take(':') {
			return p.syntax("after a key")
		}
		return field(key)
	})
}

// items reads an object's or a list's ([value, …]) items, each read by
// item, between open and end and separated by commas.
func (p *jsonParser) items(open, end byte, where string, item func() error) error {
	if !p.take(open) {
		return p.syntax("where " + where + " should begin with " + string(open))
	}
	if p.take(end) {
		return nil
	}
	for {
		if err := item(); err != nil {
			return err
		}
		if p.take(',') {
			continue
		}
		if p.take(end) {
			return nil
		}
		return p.syntax("in " + where)
	}
}

// str reads a string.
func (p *jsonParser) str() (string, error) {
	b, err := p.strBytes()
	return string(b), err
}

// strBytes reads a string; without escapes, its bytes in p.b, which the
// caller must not keep past the answer.
func (p *jsonParser) strBytes() ([]byte, error) {
	if !p.take('"') {
		return nil, p.syntax("where a string should be")
	}
	start, escaped := p.i, false
	for ; p.i < len(p.b); p.i++ {
		switch c := p.b[p.i]; {
		case c == '"':
			p.i++
			if !escaped {
				return p.b[start : p.i-1], nil
			}
			var s string
			if err := json.Unmarshal(p.b[start-1:p.i], &s); err != nil {
				return nil, fmt.Errorf("a string at byte %d: %v", start, err)
			}
			return []byte(s), nil
		case c == '\\':
			escaped = true
			p.i++ // the escaped byte cannot end the string
		case c < 0x20:
			return nil, p.syntax("in a string")
		}
	}
	return nil, errEnds
}

// orNull reads null as T's zero value, and anything else with read.
func orNull[T any](p *jsonParser, read func() (T, error)) (T, error) {
	if p.peek() == 'n' {
		var zero T
		return zero, p.skip()
	}
	return read()
}

// skip reads any value and drops it.
func (p *jsonParser) skip() error {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return fmt.Errorf("nested more than %d deep at byte %d", maxDepth, p.i)
	}
	switch c := p.peek(); {
	case c == '{':
		return p.object("an object", func(string) error { return p.skip() })
	case c == '[':
		return p.items('[', ']', "a list", p.skip)
	case c == '"':
		_, err := p.str()
		return err
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(p.b[p.i:], []byte(lit)) {
				p.i += len(lit)
				return nil
			}
		}
		return p.syntax("where a value should be")
	default:
		_, err := p.number()
		return err
	}
}

// number reads a JSON number.
func (p *jsonParser) number() (float64, error) {
	p.space()
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || (c >= '0' && c <= '9') {
			p.i++
			continue
		}
		break
	}
	if p.i == start {
		return 0, p.syntax("where a value should be")
	}
	text := p.b[start:p.i]
	// JSON's numbers, not Go's: no leading +, no hex, no underscores.
	if text[0] == '+' || text[len(text)-1] == '.' {
		return 0, fmt.Errorf("%q at byte %d is not a number", text, start)
	}
	return parseDecimal(text)
}

// answer reads one answer.
func (p *jsonParser) answer() (*promAnswer, error) {
	a := &promAnswer{}
	p.kept, p.outside = 0, 0
	defer func() { a.points, a.outside = p.kept, p.outside }()
	err := p.object("an answer", func(key string) (err error) {
		switch key {
		case "status":
			a.Status, err = orNull(p, p.str)
		case "errorType":
			a.ErrorType, err = orNull(p, p.str)
		case "error":
			a.Error, err = orNull(p, p.str)
		case "data":
			if p.peek() == 'n' {
				return p.skip()
			}
			err = p.object("data", func(key string) (err error) {
				switch key {
				case "resultType":
					a.Data.ResultType, err = orNull(p, p.str)
				case "result":
					a.Data.Result, err = orNull(p, p.results)
				default:
					err = p.skip()
				}
				return err
			})
		default:
			err = p.skip() // warnings, infos, and what later versions add
		}
		return err
	})
	return a, err
}

var errNotSeries = errShape{"the answer's result is not a list of series over time (query_range gives a matrix)"}

// results reads data.result: series, or, for a scalar or a string, nothing
// (err says so once resultType is known).
func (p *jsonParser) results() ([]promSeriesJSON, error) {
	if p.peek() != '[' {
		return nil, errNotSeries
	}
	var out []promSeriesJSON
	err := p.items('[', ']', "result", func() error {
		if p.peek() != '{' {
			return errNotSeries
		}
		var s promSeriesJSON
		err := p.object("a series", func(key string) (err error) {
			switch key {
			case "metric":
				s.Metric, err = orNull(p, p.labels)
			case "values":
				err = p.points(&s.Values)
			case "value":
				if p.peek() == 'n' {
					return p.skip()
				}
				err = p.instant(&s.Value)
			default:
				err = p.skip() // native histograms
			}
			return err
		})
		outside := s.Values.outside + s.Value.outside
		p.outside += outside
		if outside > 0 && s.Values.times.n+s.Value.times.n+s.Values.skipped+s.Value.skipped == 0 {
			return err // nothing in the range: not a series of the answer
		}
		p.kept += s.Values.times.n + s.Value.times.n
		out = append(out, s)
		return err
	})
	return out, err
}

// labels reads a series' labels.
func (p *jsonParser) labels() (map[string]string, error) {
	m := map[string]string{}
	err := p.object("metric", func(key string) error {
		v, err := p.str()
		m[key] = v
		return err
	})
	return m, err
}

// points reads [[t,"v"],…].
func (p *jsonParser) points(pts *promPoints) error {
	if p.peek() == 'n' {
		return p.skip()
	}
	if p.peek() != '[' {
		return errors.New(`values is not a list of [time, "value"] pairs`)
	}
	// The values, if they change too often to be kept as runs, are
	// allocated once, at their count.
	p.vals = p.vals[:0]
	kept := 0
	err := p.items('[', ']', "values", func() error {
		t, v, ok, err := p.point(pts)
		switch {
		case !ok || err != nil:
		case p.win != nil && (t < p.win.from || t > p.win.to || kept >= p.win.most):
			pts.outside++
		default:
			kept++
			pts.times.add(t)
			p.vals = append(p.vals, v)
		}
		return err
	})
	pts.vals.hint = pts.vals.n + len(p.vals)
	for _, v := range p.vals {
		pts.vals.add(v)
	}
	return err
}

// instant reads an instant vector's [t,"v"] into pts.
func (p *jsonParser) instant(pts *promPoints) error {
	t, v, ok, err := p.point(pts)
	if ok && err == nil {
		pts.times.add(t)
		pts.vals.add(v)
	}
	return err
}

// Unix seconds Prometheus can hold: its times are int64 milliseconds.
const maxPromSeconds = math.MaxInt64 / 1000

// point reads one [t,"v"]: its time in Unix ms and its value, and ok
// unless the value is NaN or infinite (a gap, which pts.skipped counts).
func (p *jsonParser) point(pts *promPoints) (t int64, v float64, ok bool, err error) {
	if !p.take('[') {
		return 0, 0, false, errors.New(`a point is not a [time, "value"] pair`)
	}
	start := p.i
	sec, err := p.number()
	if err != nil || math.IsNaN(sec) || math.Abs(sec) >= maxPromSeconds {
		return 0, 0, false, fmt.Errorf("a point's time %q is not Unix seconds", bytes.TrimSpace(p.b[start:p.i]))
	}
	if !p.take(',') || p.peek() != '"' {
		return 0, 0, false, errors.New(`a point's value is not a string such as "97.5"`)
	}
	// The value's text is read where it lies: a string of it per point
	// was 80 MB of garbage in a day of 64 GPUs.
	text, err := p.strBytes()
	if err != nil {
		return 0, 0, false, err
	}
	v, err = parseDecimal(text)
	if err != nil {
		return 0, 0, false, fmt.Errorf("a point's value %q is not a number", string(text))
	}
	if !p.take(']') {
		return 0, 0, false, errors.New("a point has more than a time and a value")
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		pts.skipped++
		return 0, 0, false, nil
	}
	return int64(math.Round(sec * 1000)), v, true, nil
}

// pow10 are the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseDecimal is strconv.ParseFloat, quicker for what Prometheus writes
// most: "97", "1795584348.5", "-0.25". With at most 15 digits the digits
// and the power of ten are exact as floats, so one division is the
// correctly rounded value, the same that ParseFloat gives.
func parseDecimal(b []byte) (float64, error) {
	i, neg := 0, false
	if len(b) > 0 && b[0] == '-' {
		neg, i = true, 1
	}
	var mant uint64
	digits, frac, dot := 0, 0, false
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			mant = mant*10 + uint64(c-'0')
			digits++
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return strconv.ParseFloat(string(b), 64) // an exponent, NaN, Inf
		}
		if digits > 15 {
			return strconv.ParseFloat(string(b), 64)
		}
	}
	if digits == 0 || (dot && frac == 0) {
		return strconv.ParseFloat(string(b), 64)
	}
	v := float64(mant) / pow10[frac]
	if neg {
		v = -v
	}
	return v, nil
}
