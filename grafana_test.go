package main

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"testing"
)

const dashboardFile = "examples/grafana/gputop.json"

// The shipped Grafana dashboard imports as it is: a current schema, its
// data source a variable (never a uid of someone's Grafana), the Hostname
// and gpu variables, and every query naming series gputop or dcgm-exporter
// exports; the hints are annotations and the phases a state timeline.
func TestGrafanaDashboard(t *testing.T) {
	data, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var board struct {
		SchemaVersion int `json:"schemaVersion"`
		Templating    struct {
			List []struct {
				Name  string `json:"name"`
				Type  string `json:"type"`
				Query any    `json:"query"`
			} `json:"list"`
		} `json:"templating"`
		Panels []struct {
			Type  string `json:"type"`
			Title string `json:"title"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &board); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	if board.SchemaVersion < 39 {
		t.Errorf("schemaVersion %d, want 39 or newer", board.SchemaVersion)
	}
	vars := map[string]string{}
	for _, v := range board.Templating.List {
		vars[v.Name] = v.Type
	}
	if vars["datasource"] != "datasource" || vars["Hostname"] != "query" || vars["gpu"] != "query" {
		t.Errorf("variables %v: want datasource (a data source), Hostname and gpu", vars)
	}
	var types []string
	for _, p := range board.Panels {
		types = append(types, p.Type)
	}
	if !slices.Contains(types, "state-timeline") || !slices.Contains(types, "timeseries") {
		t.Errorf("panel types %v: want time series and a state timeline of the phases", types)
	}

	var whole any
	if err := json.Unmarshal(data, &whole); err != nil {
		t.Fatal(err)
	}
	var exprs []string
	hints := false
	labelValues := regexp.MustCompile(`^label_values\((.*),\s*\w+\)$`)
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				switch s, isString := x.(string); {
				case k == "datasource" && isString:
					if s != "${datasource}" && s != "$datasource" {
						t.Errorf("%s.datasource %q: a hard-coded data source", path, s)
					}
				case k == "datasource":
					if ds, ok := x.(map[string]any); ok && ds["type"] != "grafana" && ds["uid"] != "${datasource}" {
						t.Errorf("%s.datasource %v: a hard-coded data source", path, ds)
					}
				case k == "expr" && isString:
					exprs = append(exprs, s)
					hints = hints || regexp.MustCompile(`\bgputop_hint_active\b`).MatchString(s) && path == ".annotations.list[]"
				case k == "query" && isString && labelValues.MatchString(s):
					exprs = append(exprs, labelValues.FindStringSubmatch(s)[1])
				}
				walk(path+"."+k, x)
			}
		case []any:
			for _, x := range v {
				walk(path+"[]", x)
			}
		}
	}
	walk("", whole)
	if len(exprs) < 8 || !hints {
		t.Errorf("%d queries, hints as annotations %v", len(exprs), hints)
	}
	known := knownSeries()
	for _, e := range exprs {
		for _, s := range seriesNamesIn(e) {
			if !slices.Contains(known, s) {
				t.Errorf("the query %q names %s, which neither gputop nor dcgm-exporter exports", e, s)
			}
		}
	}
}
