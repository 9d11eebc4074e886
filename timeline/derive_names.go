package timeline

import "unsafe"

// nameFacts is what a plan needs to know of a metric's name: looked up once
// per name string (nameMemo), not three or four times for each of a
// session's 37,000 keys.
type nameFacts struct {
	rated bool  // a counter's that makes a value, or a denominator's (isRated)
	valid Range // RangeOf the name
	// rule is the name's counterRule where ruled; ruleValid is RangeOf the
	// value it makes.
	rule      counterRule
	ruled     bool
	ruleValid Range
}

func factsOf(name string) nameFacts {
	f := nameFacts{rated: isRated(name)}
	f.valid, _ = RangeOf(name)
	if f.rule, f.ruled = counterRules[name]; f.ruled {
		f.ruleValid, _ = RangeOf(f.rule.out)
	}
	return f
}

// nameMemo remembers the facts of the names last asked, by where their
// bytes are: a sample's keys share their name strings (a decoder's, a
// probe's constants), so a name is a pointer compared. The same bytes at
// the same address and length are the same name; a name in other bytes is
// looked up again, never confused.
type nameMemo struct {
	at    [64]*byte
	n     [64]int
	facts [64]nameFacts
}

func (m *nameMemo) of(name string) *nameFacts {
	p := unsafe.StringData(name)
	i := (uintptr(unsafe.Pointer(p)) >> 3) % uintptr(len(m.at))
	if m.at[i] != p || m.n[i] != len(name) || p == nil {
		m.at[i], m.n[i], m.facts[i] = p, len(name), factsOf(name)
	}
	return &m.facts[i]
}
