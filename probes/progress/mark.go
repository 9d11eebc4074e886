package progress

import (
	"bytes"
	"math"
)

// ParseMark reads a progress line sent to the session socket (gputop mark
// "progress 1200 steps", or the Python snippet's gputop_progress): the word
// "progress", a count of units done so far, and optionally the unit ("it"
// if none) and a rate, "progress 1200 steps 48.5/s". False for anything
// else, which stays a marker.
func ParseMark(text string) (Reading, bool) {
	f := bytes.Fields([]byte(text))
	if len(f) < 2 || len(f) > 4 || string(f[0]) != "progress" {
		return Reading{}, false
	}
	r := Reading{Stream: streamMark, Count: math.NaN(), Total: math.NaN(), Rate: math.NaN(), Unit: "it"}
	v, n := parseNumber(f[1])
	if n != len(f[1]) || !valid(v) {
		return Reading{}, false
	}
	r.Count = v
	rest := f[2:]
	if len(rest) > 0 && isWord(string(rest[0])) && len(rest[0]) <= 16 {
		r.Unit = singular(string(rest[0]))
		rest = rest[1:]
	}
	if len(rest) == 1 {
		rate, ok := bytes.CutSuffix(rest[0], []byte("/s"))
		v, n := parseNumber(rate)
		if !ok || n != len(rate) || !valid(v) {
			return Reading{}, false
		}
		r.Rate = v
		rest = rest[1:]
	}
	return r, len(rest) == 0
}

// streamMark is the stream of progress sent through the session socket.
const streamMark uint64 = 98

// singular is a unit's name as the job gives it, known plurals made
// singular ("steps" is "step"), others as they are.
func singular(s string) string {
	if u, ok := unitName([]byte(s)); ok {
		return u
	}
	return s
}
