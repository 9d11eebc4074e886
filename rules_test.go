package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v2"

	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// The shipped alerting rules (examples/prometheus), as Prometheus reads them.
const (
	rulesFile     = "examples/prometheus/gputop.rules.yml"
	rulesTestFile = "examples/prometheus/gputop.rules.test.yml"
	alertsDoc     = "docs/alerts.md"
)

type ruleFile struct {
	Groups []struct {
		Name  string `yaml:"name"`
		Rules []rule `yaml:"rules"`
	} `yaml:"groups"`
}

type rule struct {
	Record      string            `yaml:"record"`
	Alert       string            `yaml:"alert"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

func readRules(t *testing.T) ruleFile {
	t.Helper()
	data, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	var f ruleFile
	if err := yaml.UnmarshalStrict(data, &f); err != nil {
		t.Fatalf("%s: %v", rulesFile, err)
	}
	return f
}

// needPromtool skips a test where Debian's prometheus (which ships
// promtool) is missing, and fails it under CI.
func needPromtool(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("promtool")
	if err != nil {
		timelinetest.Unavailable(t, "promtool is not installed (.ci/run installs Debian's prometheus)")
	}
	return bin
}

// promtool, Prometheus' own checker, accepts the rules, and the unit tests
// beside them (series in, alerts out, every annotation as written) pass.
func TestAlertRulesPassPromtool(t *testing.T) {
	promtool := needPromtool(t)
	for _, args := range [][]string{{"check", "rules", filepath.Base(rulesFile)}, {"test", "rules", filepath.Base(rulesTestFile)}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = filepath.Dir(rulesFile)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// Every series a rule or an alert's template reads is one gputop serve or
// dcgm-exporter exports (or one the file records itself), and the rules
// marked source: dcgm read dcgm-exporter's names alone.
func TestAlertRulesNameOnlyExportedSeries(t *testing.T) {
	f := readRules(t)
	var recorded []string
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			if r.Record != "" {
				recorded = append(recorded, r.Record)
			}
		}
	}
	known := knownSeries(recorded...)
	for _, g := range f.Groups {
		dcgmOnly := strings.Contains(g.Name, "dcgm")
		for _, r := range g.Rules {
			name := r.Alert + r.Record
			queries := []string{r.Expr}
			for _, a := range r.Annotations {
				queries = append(queries, templateQueries(t, a)...)
			}
			for i, q := range queries {
				for _, s := range seriesNamesIn(q) {
					if !slices.Contains(known, s) {
						t.Errorf("%s: %s is not a series gputop or dcgm-exporter exports", name, s)
					}
					// A template may add gputop's evidence where there is
					// some; the expression must not need it.
					if dcgmOnly && i == 0 && strings.HasPrefix(s, "gputop_") {
						t.Errorf("%s, in group %s for dcgm-exporter alone, reads %s", name, g.Name, s)
					}
				}
			}
		}
	}
}

// Each alert has a for:, a severity, its source, a summary that names the
// host (and the GPU, but for an alert about a whole host), a runbook that
// docs/alerts.md has a heading for, and a unit test.
func TestAlertRulesAreComplete(t *testing.T) {
	f := readRules(t)
	doc, err := os.ReadFile(alertsDoc)
	if err != nil {
		t.Fatal(err)
	}
	tests, err := os.ReadFile(rulesTestFile)
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#+ (.+)$`).FindAllStringSubmatch(string(doc), -1) {
		anchors[githubAnchor(m[1])] = true
	}
	alerts := 0
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			alerts++
			source := "gputop"
			if strings.Contains(g.Name, "dcgm") {
				source = "dcgm"
			}
			switch {
			case r.For == "":
				t.Errorf("%s has no for:", r.Alert)
			case !slices.Contains([]string{"critical", "warning", "info"}, r.Labels["severity"]):
				t.Errorf("%s: severity %q", r.Alert, r.Labels["severity"])
			case r.Labels["source"] != source:
				t.Errorf("%s in group %s: source %q, want %q", r.Alert, g.Name, r.Labels["source"], source)
			case !strings.Contains(r.Annotations["summary"], "$labels.Hostname"):
				t.Errorf("%s: the summary does not name the host: %q", r.Alert, r.Annotations["summary"])
			case !strings.Contains(r.Annotations["summary"], "$labels.gpu") && !strings.Contains(r.Alert, "Host"):
				t.Errorf("%s: the summary does not name the GPU: %q", r.Alert, r.Annotations["summary"])
			case r.Annotations["description"] == "":
				t.Errorf("%s has no description", r.Alert)
			}
			url := r.Annotations["runbook_url"]
			_, anchor, _ := strings.Cut(url, "docs/alerts.md#")
			if anchor != strings.ToLower(r.Alert) || !anchors[anchor] {
				t.Errorf("%s: runbook_url %q: want docs/alerts.md#%s, and a heading for it there", r.Alert, url, strings.ToLower(r.Alert))
			}
			if !strings.Contains(string(tests), "alertname: "+r.Alert+"\n") {
				t.Errorf("%s has no unit test in %s", r.Alert, rulesTestFile)
			}
		}
	}
	if alerts < 15 {
		t.Errorf("%d alerts", alerts)
	}
}

// githubAnchor is the anchor GitHub gives a heading: lower case, spaces to
// dashes, punctuation dropped.
func githubAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}
