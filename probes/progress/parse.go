package progress

import (
	"bytes"
	"math"
)

// Reading is what one output line says about the job's progress: how many
// units are done, of how many, and how many a second, as far as it says.
type Reading struct {
	// Stream tells apart the bars and kinds of line one job prints: a hash
	// of a bar's description (its letters only, so "Epoch 3" is the bar of
	// every epoch) and total, or of the kind of log line. The Tracker
	// follows one stream.
	Stream uint64
	// Count is the units done as the line counts them (a bar's position,
	// which restarts with each bar); NaN if the line says none.
	Count float64
	// Total is the bar's length; NaN if it has none.
	Total float64
	// Rate is units per second; NaN if the line says none.
	Rate float64
	// Unit is the job's own name for the unit, singular: "it", "step",
	// "sample", "token", "img", "epoch".
	Unit string
}

// maxLine is how much of a line is looked at: a bar fits many times over.
const maxLine = 1024

// Parser reads Readings out of lines. It keeps a scratch buffer, so each
// output stream needs its own (Clone).
type Parser struct {
	custom *customRegex
	buf    []byte
}

// New returns a parser of the built-in formats, and of custom first where
// it is not nil (see NewCustom).
func New(custom *CustomPattern) *Parser {
	p := &Parser{}
	if custom != nil {
		p.custom = &custom.re
	}
	return p
}

// Clone returns a parser of the same formats with a scratch buffer of its
// own, for another stream.
func (p *Parser) Clone() *Parser { return &Parser{custom: p.custom} }

// Parse reads one line (without its "\r" or "\n"). Terminal escape
// sequences (colours, cursor moves) are skipped.
func (p *Parser) Parse(line []byte) (Reading, bool) {
	if len(line) > maxLine {
		line = line[:maxLine]
	}
	l := p.clean(line)
	var r Reading
	ok := false
	if p.custom != nil {
		r, ok = p.custom.parse(l)
	}
	if !ok {
		r, ok = parseBuiltin(l)
	}
	if !ok || !valid(r.Count) && !valid(r.Rate) {
		return Reading{}, false
	}
	// A number out of bounds is not evidence: drop it, and the reading if
	// nothing is left.
	if !valid(r.Count) {
		r.Count = math.NaN()
	}
	if !valid(r.Total) {
		r.Total = math.NaN()
	}
	if !valid(r.Rate) {
		r.Rate = math.NaN()
	}
	return r, true
}

// clean returns line without terminal escape sequences: line itself when
// it has none. Other control bytes (a backspace, a tab) stay: no format
// reads them as a digit, a letter or a mark.
func (p *Parser) clean(line []byte) []byte {
	esc := bytes.IndexByte(line, 0x1b)
	if esc < 0 {
		return line
	}
	b := p.buf[:0]
	for esc >= 0 {
		b = append(b, line[:esc]...)
		line = line[skipEscape(line, esc):]
		esc = bytes.IndexByte(line, 0x1b)
	}
	b = append(b, line...)
	p.buf = b
	return b
}

// skipEscape returns the index past the escape sequence at line[i]: CSI
// (ESC [ parameters final byte), a string (OSC, DCS, SOS, PM, APC: ESC ] …
// BEL or ESC \), or ESC and one byte.
func skipEscape(line []byte, i int) int {
	j := i + 1
	if j >= len(line) {
		return j
	}
	switch line[j] {
	case '[':
		for j++; j < len(line); j++ {
			if line[j] >= 0x40 && line[j] <= 0x7e {
				return j + 1
			}
		}
		return j
	case ']', 'P', 'X', '^', '_':
		for j++; j < len(line); j++ {
			if line[j] == 0x07 {
				return j + 1
			}
			if line[j] == 0x1b && j+1 < len(line) && line[j+1] == '\\' {
				return j + 2
			}
		}
		return j
	}
	return j + 1
}

// parseBuiltin tries the built-in formats: a bar (tqdm, Lightning, Rich,
// Keras), a Hugging Face log dict, then generic log lines.
func parseBuiltin(l []byte) (Reading, bool) {
	s := bytes.TrimLeft(l, " ")
	if len(s) > 0 && s[0] == '{' {
		return parseDict(s)
	}
	if r, ok := parseBar(l); ok {
		return r, true
	}
	return parseGeneric(l)
}

// nan is a Reading with nothing in it yet.
func nan(stream uint64, unit string) Reading {
	return Reading{Stream: stream, Count: math.NaN(), Total: math.NaN(), Rate: math.NaN(), Unit: unit}
}

// Streams of the kinds of line that are not bars.
const (
	streamDictEpoch uint64 = iota + 1
	streamDictTrain
	streamDictEval
	streamRate
	streamStep
	streamIter
)

// parseDict reads a Hugging Face Trainer log dict: "{'loss': 0.45,
// 'learning_rate': 4.5e-05, 'epoch': 0.5}" is 0.5 epochs done; the summary
// "{'train_runtime': 123.4, 'train_samples_per_second': 45.6, …}" is a rate
// of 45.6 samples a second; "{'eval_loss': …, 'eval_samples_per_second':
// 98.1, …}" the evaluation's rate.
func parseDict(s []byte) (Reading, bool) {
	if v, ok := dictValue(s, "train_samples_per_second"); ok {
		r := nan(streamDictTrain, "sample")
		r.Rate = v
		return r, true
	}
	if v, ok := dictValue(s, "eval_samples_per_second"); ok {
		r := nan(streamDictEval, "sample")
		r.Rate = v
		return r, true
	}
	if v, ok := dictValue(s, "epoch"); ok {
		r := nan(streamDictEpoch, "epoch")
		r.Count = v
		return r, true
	}
	return Reading{}, false
}

// dictValue finds 'key': number (or "key": number) in a dict's text.
func dictValue(s []byte, key string) (float64, bool) {
	for from := 0; ; {
		i := bytes.Index(s[from:], []byte(key))
		if i < 0 {
			return 0, false
		}
		i += from
		from = i + len(key)
		if i == 0 || (s[i-1] != '\'' && s[i-1] != '"') || from >= len(s) || s[from] != s[i-1] {
			continue
		}
		j := from + 1
		for j < len(s) && s[j] == ' ' {
			j++
		}
		if j >= len(s) || s[j] != ':' {
			continue
		}
		for j++; j < len(s) && s[j] == ' '; j++ {
		}
		v, n := parseNumber(s[j:])
		if n == 0 {
			return 0, false
		}
		return v, true
	}
}
