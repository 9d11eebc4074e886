package importer

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
// encoding/json reads the envelope; the points, nearly all of the bytes,
// go through promPoints' own scanner, which keeps them as two flat slices
// instead of a []any per point.

// promAnswer is one answer.
type promAnswer struct {
	Status    string `json:"status"`
	ErrorType string `json:"errorType"`
	Error     string `json:"error"`
	Data      struct {
		ResultType string           `json:"resultType"`
		Result     []promSeriesJSON `json:"result"`
	} `json:"data"`
}

// promSeriesJSON is one series of a matrix (values) or of a vector (value).
type promSeriesJSON struct {
	Metric map[string]string `json:"metric"`
	Values promPoints        `json:"values"`
	Value  promPoint         `json:"value"`
}

// promPoints are a series' points: times in Unix milliseconds (Prometheus'
// resolution) and values. A point whose value is NaN or infinite is left
// out, a gap like any other; skipped counts them.
type promPoints struct {
	times   pointTimes
	vals    []float64
	skipped int
}

// promPoint is a vector's single [time, "value"].
type promPoint struct{ promPoints }

// err is an answer that could not be read, or Prometheus' own error.
func (a *promAnswer) err() error {
	switch a.Status {
	case "success":
	case "error":
		if a.ErrorType != "" {
			return fmt.Errorf("Prometheus says %s: %s", a.ErrorType, a.Error)
		}
		return fmt.Errorf("Prometheus says: %s", a.Error)
	case "":
		return errors.New(`not an answer of Prometheus' HTTP API (no "status")`)
	default:
		return fmt.Errorf("not an answer of Prometheus' HTTP API (status %q)", a.Status)
	}
	switch a.Data.ResultType {
	case "matrix", "vector":
		return nil
	case "":
		return errors.New("Prometheus' answer has no data")
	default:
		return fmt.Errorf("Prometheus' answer is a %s, not series over time (query_range gives a matrix)", a.Data.ResultType)
	}
}

// decodeAnswers reads one answer, several written one after another (as
// `curl … >> answers.json` leaves them), or a JSON array of them, and
// calls each for every one in order. It stops at the first that cannot be
// read or that is an error.
func decodeAnswers(r io.Reader, each func(*promAnswer) error) error {
	dec := json.NewDecoder(r)
	n := 0
	for {
		tok, err := peekByte(dec)
		if err == io.EOF {
			if n == 0 {
				return errors.New("no Prometheus answer in it (it is empty)")
			}
			return nil
		}
		if err != nil {
			return jsonError(err, n)
		}
		if tok == '[' {
			var list []promAnswer
			if err := dec.Decode(&list); err != nil {
				return jsonError(err, n)
			}
			for i := range list {
				if err := answerErr(&list[i], n); err != nil {
					return err
				}
				if err := each(&list[i]); err != nil {
					return err
				}
				list[i] = promAnswer{} // its points now belong to each's caller
				n++
			}
			continue
		}
		var a promAnswer
		if err := dec.Decode(&a); err != nil {
			return jsonError(err, n)
		}
		if err := answerErr(&a, n); err != nil {
			return err
		}
		if err := each(&a); err != nil {
			return err
		}
		n++
	}
}

// answerErr is a's error, saying which answer it was when there are several.
func answerErr(a *promAnswer, n int) error {
	err := a.err()
	if err != nil && n > 0 {
		return fmt.Errorf("answer %d: %w", n+1, err)
	}
	return err
}

// peekByte is the first byte of the next JSON value in dec.
func peekByte(dec *json.Decoder) (byte, error) {
	// More reports whether a value follows; the buffered bytes say which.
	if !dec.More() {
		if _, err := dec.Token(); err != nil {
			return 0, err
		}
		return 0, errors.New("unexpected ] or }")
	}
	// More skipped the spaces: the value's first byte is buffered.
	var b [1]byte
	if n, _ := dec.Buffered().Read(b[:]); n == 0 {
		return '{', nil
	}
	return b[0], nil
}

// jsonError words a decoding error: the JSON is not Prometheus'.
func jsonError(err error, n int) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var what string
	switch {
	case errors.As(err, &syn):
		what = fmt.Sprintf("%v at byte %d", syn, syn.Offset)
	case errors.As(err, &typ) && typ.Field == "data.result":
		return errors.New("the answer's result is not a list of series over time (query_range gives a matrix)")
	case errors.As(err, &typ):
		what = fmt.Sprintf("%q holds a %s where Prometheus has a %s", typ.Field, typ.Value, typ.Type)
	case err == io.ErrUnexpectedEOF:
		what = "it ends in the middle"
	default:
		what = err.Error()
	}
	if n > 0 {
		return fmt.Errorf("answer %d is not Prometheus' JSON: %s", n+1, what)
	}
	return fmt.Errorf("not Prometheus' JSON: %s", what)
}

// UnmarshalJSON reads [[t,"v"],…].
func (p *promPoints) UnmarshalJSON(b []byte) error {
	s := pointScanner{b: b}
	if s.null() {
		return nil
	}
	if !s.expect('[') {
		return s.fail("values is not a list of [time, \"value\"] pairs")
	}
	if s.expect(']') {
		return nil
	}
	// A point per [ but the outer one: the slices are allocated once, at
	// their size.
	n := bytes.Count(b, []byte{'['}) - 1
	p.vals = make([]float64, 0, n)
	for {
		if err := s.point(p); err != nil {
			return err
		}
		if s.expect(',') {
			continue
		}
		if s.expect(']') {
			return s.end()
		}
		return s.fail("values: expected , or ] after a point")
	}
}

// UnmarshalJSON reads a vector's [t,"v"].
func (p *promPoint) UnmarshalJSON(b []byte) error {
	s := pointScanner{b: b}
	if s.null() {
		return nil
	}
	if err := s.point(&p.promPoints); err != nil {
		return err
	}
	return s.end()
}

// pointScanner reads points out of bytes encoding/json has already found
// to be valid JSON; what it checks is their shape.
type pointScanner struct {
	b []byte
	i int
}

func (s *pointScanner) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

func (s *pointScanner) expect(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *pointScanner) null() bool {
	s.space()
	if bytes.HasPrefix(s.b[s.i:], []byte("null")) {
		s.i += 4
		return true
	}
	return false
}

func (s *pointScanner) end() error {
	s.space()
	if s.i != len(s.b) {
		return s.fail("unexpected data after the points")
	}
	return nil
}

func (s *pointScanner) fail(msg string) error { return errors.New(msg) }

// Unix seconds Prometheus can hold: its times are int64 milliseconds.
const maxPromSeconds = math.MaxInt64 / 1000

// point reads one [t,"v"] and appends it to p.
func (s *pointScanner) point(p *promPoints) error {
	if !s.expect('[') {
		return s.fail(`a point is not a [time, "value"] pair`)
	}
	s.space()
	start := s.i
	for s.i < len(s.b) && (s.b[s.i] == '-' || s.b[s.i] == '+' || s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E' || (s.b[s.i] >= '0' && s.b[s.i] <= '9')) {
		s.i++
	}
	sec, err := strconv.ParseFloat(string(s.b[start:s.i]), 64)
	if err != nil || math.IsNaN(sec) || math.Abs(sec) >= maxPromSeconds {
		return fmt.Errorf("a point's time %q is not Unix seconds", s.b[start:s.i])
	}
	if !s.expect(',') || !s.expect('"') {
		return s.fail(`a point's value is not a string such as "97.5"`)
	}
	start = s.i
	for s.i < len(s.b) && s.b[s.i] != '"' && s.b[s.i] != '\\' {
		s.i++
	}
	text := s.b[start:s.i]
	if !s.expect('"') {
		return s.fail(`a point's value is not a plain string such as "97.5"`)
	}
	v, err := strconv.ParseFloat(string(text), 64)
	if err != nil {
		return fmt.Errorf("a point's value %q is not a number", text)
	}
	if !s.expect(']') {
		return s.fail(`a point has more than a time and a value`)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		p.skipped++
		return nil
	}
	p.times.add(int64(math.Round(sec * 1000)))
	p.vals = append(p.vals, v)
	return nil
}
