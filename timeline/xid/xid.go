package xid

import (
	"strconv"
	"strings"
)

// Entry is one entry of the catalogue of common Xid errors.
type Entry struct {
	Meaning string // NVIDIA's name for it, from the Xid catalogue
	// Memory says it is about the GPU's memory (ECC, retired pages,
	// remapped rows); App says it is usually the application's fault
	// (an illegal address, a kernel that faulted) rather than the GPU's.
	Memory, App bool
	// Fatal says the GPU cannot go on without a reset (or is gone).
	Fatal bool
}

// xidCatalogue holds the Xids a training node meets most, with the names
// NVIDIA's Xid documentation gives them (docs.nvidia.com/deploy/xid-errors,
// "Xid Errors" table and its Ampere-and-newer catalogue). Any other code is
// shown by number only: a meaning is never guessed.
var xidCatalogue = map[int]Entry{
	13: {Meaning: "Graphics Engine Exception", App: true},
	31: {Meaning: "GPU memory page fault", App: true},
	43: {Meaning: "GPU stopped processing", App: true},
	48: {Meaning: "Double Bit ECC Error", Memory: true, Fatal: true},
	63: {Meaning: "ECC page retirement or row remapping recording event", Memory: true},
	64: {Meaning: "ECC page retirement or row remapper recording failure", Memory: true, Fatal: true},
	74: {Meaning: "NVLink Error", Fatal: true},
	79: {Meaning: "GPU has fallen off the bus", Fatal: true},
	92: {Meaning: "High single-bit ECC error rate", Memory: true},
	94: {Meaning: "Contained ECC error", Memory: true},
	95: {Meaning: "Uncontained ECC error", Memory: true, Fatal: true},
}

// Lookup gives the catalogue's entry for an Xid code; false for a code
// it does not hold.
func Lookup(code int) (Entry, bool) {
	x, ok := xidCatalogue[code]
	return x, ok
}

// MarkerText is the text of the marker of Xid code on GPU gpu (its
// session-wide index): "GPU3 Xid 79: GPU has fallen off the bus", or
// "GPU3 Xid 119" for a code the catalogue does not hold.
func MarkerText(gpu, code int) string {
	s := "GPU" + strconv.Itoa(gpu) + " Xid " + strconv.Itoa(code)
	if x, ok := xidCatalogue[code]; ok {
		s += ": " + x.Meaning
	}
	return s
}

// ParseMarker reads the GPU and the code back out of a marker text made
// by MarkerText (a recording's, so any text at all): false for anything
// else.
func ParseMarker(text string) (gpu, code int, ok bool) {
	rest, ok := strings.CutPrefix(text, "GPU")
	if !ok {
		return 0, 0, false
	}
	g, rest, ok := strings.Cut(rest, " Xid ")
	if !ok {
		return 0, 0, false
	}
	c, _, _ := strings.Cut(rest, ":")
	gpu, ok1 := smallNumber(g)
	code, ok2 := smallNumber(c)
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	return gpu, code, true
}

// smallNumber reads a decimal of at most six digits, without sign or
// leading zero.
func smallNumber(s string) (int, bool) {
	if s == "" || len(s) > 6 || s[0] < '0' || s[0] > '9' || len(s) > 1 && s[0] == '0' {
		return 0, false // strconv.Atoi would take a sign and leading zeros
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}
