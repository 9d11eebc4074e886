package remote

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
)

// MaxHosts bounds a host list: one viewer follows at most this many hosts
// (docs/performance.md says where the design stops), and a typo such as
// node[1-100000] fails in one line instead of starting a hundred thousand
// ssh processes.
const MaxHosts = 1024

// ParseHosts reads a host list as Slurm and pdsh write it: names separated by
// commas, each with any number of bracketed ranges, "node[3-8]",
// "gpu[01-16]" (the width of the range's first number pads them all),
// "a[1-2,5]", "rack[1-2]-n[1-4]". Duplicates are dropped, the first
// occurrence keeping its place. A name may carry a user ("root@node1") but
// never start with "-", which ssh would read as an option. The error is one
// line that says what is wrong and where.
func ParseHosts(list string) ([]string, error) {
	if strings.TrimSpace(list) == "" {
		return nil, fmt.Errorf("no hosts given")
	}
	items, err := splitTop(list)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool)
	var hosts []string
	for _, item := range items {
		if item == "" {
			return nil, fmt.Errorf("empty host name in %q", list)
		}
		names, err := expand(item, MaxHosts-len(hosts))
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if err := checkName(n); err != nil {
				return nil, err
			}
			if !seen[n] {
				seen[n] = true
				hosts = append(hosts, n)
			}
		}
	}
	return hosts, nil
}

// splitTop splits at the commas outside brackets, and checks the brackets
// pair up.
func splitTop(list string) ([]string, error) {
	var items []string
	depth, start := 0, 0
	for i := 0; i < len(list); i++ {
		switch list[i] {
		case '[':
			if depth > 0 {
				return nil, fmt.Errorf("%q: brackets cannot nest", list)
			}
			depth++
		case ']':
			if depth == 0 {
				return nil, fmt.Errorf("%q: \"]\" without \"[\"", list)
			}
			depth--
		case ',':
			if depth == 0 {
				items = append(items, strings.TrimSpace(list[start:i]))
				start = i + 1
			}
		}
	}
	if depth > 0 {
		return nil, fmt.Errorf("%q: \"[\" without \"]\"", list)
	}
	return append(items, strings.TrimSpace(list[start:])), nil
}

// expand turns one item into its names, at most limit of them.
func expand(item string, limit int) ([]string, error) {
	prefix, bracketed, found := strings.Cut(item, "[")
	if !found {
		if limit < 1 {
			return nil, tooMany()
		}
		return []string{item}, nil
	}
	ranges, rest, _ := strings.Cut(bracketed, "]")
	numbers, err := parseRanges(item, ranges, limit)
	if err != nil {
		return nil, err
	}
	tails, err := expand(rest, limit)
	if err != nil {
		return nil, err
	}
	if len(numbers)*len(tails) > limit {
		return nil, tooMany()
	}
	out := make([]string, 0, len(numbers)*len(tails))
	for _, n := range numbers {
		for _, t := range tails {
			out = append(out, prefix+n+t)
		}
	}
	return out, nil
}

func tooMany() error {
	return fmt.Errorf("more than %d hosts; gputop --hosts follows at most %d", MaxHosts, MaxHosts)
}

// parseRanges reads "1-2,5" or "01-16" into the numbers as written.
func parseRanges(item, ranges string, limit int) ([]string, error) {
	if ranges == "" {
		return nil, fmt.Errorf("%q: empty brackets", item)
	}
	var out []string
	for _, r := range strings.Split(ranges, ",") {
		lo, hi, isRange := strings.Cut(r, "-")
		if !isRange {
			hi = lo
		}
		a, errLo := rangeNumber(item, lo)
		b, errHi := rangeNumber(item, hi)
		if err := cmp.Or(errLo, errHi); err != nil {
			return nil, err
		}
		if a > b {
			return nil, fmt.Errorf("%q: range %s runs backwards", item, r)
		}
		if b-a >= limit-len(out) {
			return nil, tooMany()
		}
		// "01-16" pads to the width of its first number.
		width := 0
		if len(lo) > 1 && lo[0] == '0' {
			width = len(lo)
		}
		for n := a; n <= b; n++ {
			out = append(out, fmt.Sprintf("%0*d", width, n))
		}
	}
	return out, nil
}

func rangeNumber(item, s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || len(s) > 9 || n < 0 || s[0] == '+' {
		return 0, fmt.Errorf("%q: %q is not a number in a range such as [1-8]", item, s)
	}
	return n, nil
}

// checkName refuses what cannot be a host for ssh: an option, a space, a
// shell's or a terminal's special character.
func checkName(n string) error {
	if n == "" {
		return fmt.Errorf("empty host name")
	}
	if n[0] == '-' {
		return fmt.Errorf("host %q starts with \"-\"", n)
	}
	for _, c := range n {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._-@:%+", c)) {
			return fmt.Errorf("host %q: %q cannot be in a host name", n, c)
		}
	}
	if len(n) > 255 {
		return fmt.Errorf("host %.20q...: longer than 255 characters", n)
	}
	return nil
}
