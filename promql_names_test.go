package main

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gputop-dev/gputop/timeline/exporter"
)

// dcgmExporterNames are dcgm-exporter's series that gputop does not export
// but the examples may read, from its default counter list
// (etc/default-counters.csv of NVIDIA/dcgm-exporter; docs/alerts.md names
// them), so a team that runs dcgm-exporter alone gets them. A name outside
// this list and gputop's is a typo or a series nobody sends.
var dcgmExporterNames = []string{
	"DCGM_FI_DEV_MEMORY_TEMP",
	"DCGM_FI_PROF_GR_ENGINE_ACTIVE",
	"DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL",
	"DCGM_FI_DEV_RETIRED_SBE",
	"DCGM_FI_DEV_RETIRED_DBE",
	"DCGM_FI_DEV_ROW_REMAP_FAILURE",
}

// prometheusNames are series Prometheus itself makes: up per target, and
// ALERTS for the alerts it holds.
var prometheusNames = []string{"up", "ALERTS", "ALERTS_FOR_STATE"}

// knownSeries is every series name a rule or a panel may name.
func knownSeries(recorded ...string) []string {
	names := append(exporter.SeriesNames(), dcgmExporterNames...)
	names = append(names, prometheusNames...)
	return append(names, recorded...)
}

var (
	promqlString   = regexp.MustCompile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'|`[^`]*`")
	promqlBraces   = regexp.MustCompile(`\{[^{}]*\}|\[[^\[\]]*\]`)
	promqlGrouping = regexp.MustCompile(`\b(by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)`)
	promqlNumber   = regexp.MustCompile(`\b\d+(\.\d+)?([eE][+-]?\d+)?[smhdwy]?\b`)
	promqlIdent    = regexp.MustCompile(`[A-Za-z_:][A-Za-z0-9_:]*`)
	promqlKeywords = []string{"and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right",
		"bool", "offset", "Inf", "NaN", "inf", "nan"}
)

// seriesNamesIn returns the series names a PromQL expression reads: what
// is left once strings, label matchers, ranges, grouping labels, numbers,
// keywords and functions (a name before "(") are taken out. Grafana's
// variables ($gpu, $__rate_interval) sit inside matchers and ranges.
func seriesNamesIn(expr string) []string {
	s := promqlString.ReplaceAllString(expr, `""`)
	for prev := ""; prev != s; {
		prev = s
		s = promqlBraces.ReplaceAllString(s, " ")
	}
	s = promqlGrouping.ReplaceAllString(s, " ")
	s = promqlNumber.ReplaceAllString(s, " ")
	var names []string
	for _, loc := range promqlIdent.FindAllStringIndex(s, -1) {
		name := s[loc[0]:loc[1]]
		if loc[0] > 0 && s[loc[0]-1] == '$' {
			continue // a Grafana variable outside a matcher
		}
		if strings.HasPrefix(strings.TrimLeft(s[loc[1]:], " \t\n"), "(") || slices.Contains(promqlKeywords, name) {
			continue
		}
		names = append(names, name)
	}
	return names
}

// templateQueries returns the PromQL of every query an alert template
// runs: `query "..."` and `printf "..." ... | query`, its verbs filled.
var templateQuery = regexp.MustCompile(`query\s+("(?:[^"\\]|\\.)*")|printf\s+("(?:[^"\\]|\\.)*")[^|}]*\|\s*query\b`)

func templateQueries(t *testing.T, text string) []string {
	t.Helper()
	var out []string
	for _, m := range templateQuery.FindAllStringSubmatch(text, -1) {
		quoted := m[1] + m[2]
		q, err := strconv.Unquote(quoted)
		if err != nil {
			t.Errorf("template string %s: %v", quoted, err)
			continue
		}
		out = append(out, strings.NewReplacer("%q", `"x"`, "%s", "x").Replace(q))
	}
	return out
}

func TestSeriesNamesInPromQL(t *testing.T) {
	for _, c := range []struct {
		expr string
		want []string
	}{
		{`rate(DCGM_FI_DEV_POWER_VIOLATION{gpu=~"$gpu"}[$__rate_interval]) / 1e6`, []string{"DCGM_FI_DEV_POWER_VIOLATION"}},
		{`a * on (instance, job) group_left (Hostname) b > 0.5`, []string{"a", "b"}},
		{`label_replace(x{id="a"}, "y", "$1", "z", "(.*)") and on (job) (max by (job) (host:u:avg5m) > 50)`, []string{"x", "host:u:avg5m"}},
		{`max_over_time(T[1h]) unless T and on (job, instance) up == 1`, []string{"T", "T", "up"}},
		{`sum without (gpu) (rate(E[5m] offset 1h))`, []string{"E"}},
	} {
		if got := seriesNamesIn(c.expr); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.expr, got, c.want)
		}
	}
}
