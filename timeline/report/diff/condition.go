package diff

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Condition is one --fail-if: a metric, a comparison and a threshold on
// the metric's change from A to B, relative (a percentage of A) or
// absolute (in the metric's unit). The grammar (docs/diff.md):
//
//	METRIC OP [+|-]NUMBER[%|UNIT]     busy<-5%   energy>+10%   util<=-3pt   duration>+2m
//
// where OP is <, <=, > or >=, % makes the threshold relative, and without
// it the number is in the metric's unit (pt for percentage points; s, m,
// h; W, kW; J, kJ, MJ, Wh, kWh; B, MiB, GiB; none for the metric's own).
type Condition struct {
	Text     string  // as written
	Metric   string  // one of Metrics
	Op       string  // <, <=, >, >=
	Value    float64 // in the metric's unit, or a fraction where Relative
	Relative bool
}

var conditionRE = regexp.MustCompile(`^\s*([a-z_0-9]+)\s*(<=|>=|<|>)\s*([+-]?[0-9]+(?:\.[0-9]+)?)\s*([A-Za-z%]*)\s*$`)

// unitScale is each unit a threshold may carry: the unit of the metric it
// fits, and its size in that unit.
var unitScale = map[string]struct {
	of    string
	scale float64
}{
	"pt": {"%", 1}, "s": {"s", 1}, "m": {"s", 60}, "h": {"s", 3600},
	"W": {"W", 1}, "kW": {"W", 1000}, "J": {"J", 1}, "kJ": {"J", 1e3}, "MJ": {"J", 1e6}, "Wh": {"J", 3600},
	"kWh": {"J", 3.6e6}, "B": {"B", 1}, "MiB": {"B", 1 << 20}, "GiB": {"B", 1 << 30},
}

// ParseCondition reads one --fail-if; a bad one gets an error that says
// what is wrong in one line (the command names the flag and the value).
func ParseCondition(s string) (Condition, error) {
	m := conditionRE.FindStringSubmatch(s)
	if m == nil {
		return Condition{}, fmt.Errorf("not METRIC OP CHANGE, such as 'busy<-5%%' or 'energy>+10%%'")
	}
	c := Condition{Text: strings.TrimSpace(s), Metric: m[1], Op: m[2]}
	if _, ok := unitOf[c.Metric]; !ok {
		return Condition{}, fmt.Errorf("no metric %q (one of: %s)", c.Metric, strings.Join(Metrics, ", "))
	}
	v, err := strconv.ParseFloat(m[3], 64)
	if err != nil {
		return Condition{}, fmt.Errorf("%q is not a number", m[3])
	}
	switch unit := m[4]; {
	case unit == "%":
		c.Relative, c.Value = true, v/100
	case unit == "":
		c.Value = v
	default:
		u, ok := unitScale[unit]
		if !ok || u.of != unitOf[c.Metric] {
			return Condition{}, fmt.Errorf("%s is no unit of %s (%% for a change relative to A, or %s)",
				unit, c.Metric, strings.Join(unitsOf(unitOf[c.Metric]), ", "))
		}
		c.Value = v * u.scale
	}
	return c, nil
}

// unitsOf lists the units a threshold of a metric in unit may carry.
func unitsOf(unit string) []string {
	var out []string
	for _, name := range []string{"pt", "s", "m", "h", "W", "kW", "J", "kJ", "MJ", "Wh", "kWh", "B", "MiB", "GiB"} {
		if unitScale[name].of == unit {
			out = append(out, name)
		}
	}
	return out
}

// Check says whether the condition holds of d (the check fails), and why,
// in one line: "busy<-5%: busy share 62% -> 55%, -11.3%". A change that
// cannot be known (the metric unknown in a run, a relative change from
// zero) fails the check too: a gate that cannot see must not say all is
// well.
func (c Condition) Check(d *Diff) (bool, string) {
	m, _ := d.Metric(c.Metric)
	change := float64(m.Change)
	if c.Relative {
		change = float64(m.Relative)
	}
	what := fmt.Sprintf("%s: %s %s -> %s, %s", c.Text, label[m.Name], formatValue(m.Unit, m.A), formatValue(m.Unit, m.B),
		formatChange(m))
	if math.IsNaN(change) || math.IsInf(change, 0) {
		return true, what + " (cannot be compared)"
	}
	var holds bool
	switch c.Op {
	case "<":
		holds = change < c.Value
	case "<=":
		holds = change <= c.Value
	case ">":
		holds = change > c.Value
	case ">=":
		holds = change >= c.Value
	}
	return holds, what
}
