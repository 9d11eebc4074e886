package prom

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// An alert's marker text: its name first, its labels in name order,
// without __name__ and alertstate, one clean line of at most 200 bytes.
func TestAlertText(t *testing.T) {
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   string
	}{
		{"name first, labels in order",
			map[string]string{"__name__": "ALERTS", "severity": "critical", "gpu": "2", "alertstate": "firing", "alertname": "GPUXidFatal", "Hostname": "node3"},
			"alert GPUXidFatal firing: Hostname=node3 gpu=2 severity=critical"},
		{"which GPU and how bad first; not the GPU's description",
			map[string]string{"alertname": "GPUXidFatal", "alertstate": "firing", "source": "dcgm", "severity": "critical", "job": "dcgm", "gpu": "0", "GPU_I_ID": "3",
				"Hostname": "n1", "UUID": "GPU-1", "device": "nvidia0", "modelName": "NVIDIA H100 80GB HBM3", "pci_bus_id": "00000000:17:00.0", "GPU_I_PROFILE": "1g.10gb", "DCGM_FI_DRIVER_VERSION": "550"},
			"alert GPUXidFatal firing: Hostname=n1 gpu=0 GPU_I_ID=3 severity=critical job=dcgm source=dcgm"},
		{"no labels but its name", map[string]string{"alertname": "Watchdog", "alertstate": "firing"}, "alert Watchdog firing"},
		{"no name", map[string]string{"alertstate": "firing", "job": "x"}, "alert (no name) firing: job=x"},
		{"escape sequences and control characters",
			map[string]string{"alertname": "X\x1b[2J\x1b]0;pwned\x07", "Hostname": "n\x1b[31mode1\x1b[0m", "summary": "line one\nline\ttwo\u009b1m"},
			"alert X firing: Hostname=node1 summary=line one line two"},
		{"only the first labels", map[string]string{"alertname": "A", "severity": "warning", "gpu": "1"}, "alert A firing: gpu=1 severity=warning"},
	} {
		if got := alertText(c.labels); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	long := alertText(map[string]string{"alertname": "A", "description": strings.Repeat("é", 500)})
	if len(long) > 200+len("…") || !strings.HasSuffix(long, "…") || !strings.HasPrefix(long, "alert A firing: description=é") {
		t.Errorf("a long label: %d bytes, %q", len(long), long)
	}
}

// alertAnswer is a saved answer of GPU_UTIL of GPU 0 of each host at
// times (Unix s), and of the series of ALERTS given, each its labels
// (JSON members) and its times.
func alertAnswer(hosts []string, times []int, alerts ...any) string {
	var series []string
	pts := func(ts []int) string {
		var p []string
		for _, t := range ts {
			p = append(p, fmt.Sprintf(`[%d,"1"]`, t))
		}
		return strings.Join(p, ",")
	}
	for _, h := range hosts {
		series = append(series, fmt.Sprintf(`{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0","Hostname":%q},"values":[%s]}`, h, pts(times)))
	}
	for i := 0; i < len(alerts); i += 2 {
		series = append(series, fmt.Sprintf(`{"metric":{"__name__":"ALERTS",%s},"values":[%s]}`, alerts[i], pts(alerts[i+1].([]int))))
	}
	return `{"status":"success","data":{"resultType":"matrix","result":[` + strings.Join(series, ",") + `]}}`
}

// every lists the times from..to (Unix s) a step apart.
func every(from, to, step int) []int {
	var out []int
	for t := from; t <= to; t += step {
		out = append(out, t)
	}
	return out
}

// Each firing run of a series of ALERTS is one marker at its first point,
// on the first sample at or after it; a gap of up to two steps is the same
// firing, a longer one a new one.
func TestAlertMarkers(t *testing.T) {
	const xid = `"alertname":"GPUXidFatal","alertstate":"firing","Hostname":"node3","gpu":"2","severity":"critical"`
	const xidText = "alert GPUXidFatal firing: Hostname=node3 gpu=2 severity=critical"
	node3 := []string{"node3"}
	grid := every(1000, 1300, 15) // the samples, every 15 s
	for _, c := range []struct {
		name  string
		in    string
		want  []string // "text at Unix s on the sample at Unix s"
		notes []string // each a part of a note
	}{
		{"one firing", alertAnswer(node3, grid, xid, every(1060, 1120, 15)),
			[]string{xidText + " at 1060 on 1060"}, nil},
		{"a gap of two steps is the same firing", alertAnswer(node3, grid, xid, []int{1060, 1075, 1105, 1120}),
			[]string{xidText + " at 1060 on 1060"}, nil},
		{"a gap of more is a new one", alertAnswer(node3, grid, xid, []int{1060, 1075, 1120, 1135}),
			[]string{xidText + " at 1060 on 1060", xidText + " at 1120 on 1120"}, nil},
		{"between samples, on the next", alertAnswer(node3, grid, xid, []int{1061, 1076}),
			[]string{xidText + " at 1061 on 1075"}, nil},
		{"two series, in time order, then by text",
			alertAnswer(node3, grid, `"alertname":"GPUHot","alertstate":"firing","Hostname":"node3","gpu":"1"`, []int{1030}, xid, []int{1000, 1015},
				`"alertname":"GPUHot","alertstate":"firing","Hostname":"node3","gpu":"0"`, []int{1030}),
			[]string{xidText + " at 1000 on 1000", "alert GPUHot firing: Hostname=node3 gpu=0 at 1030 on 1030", "alert GPUHot firing: Hostname=node3 gpu=1 at 1030 on 1030"}, nil},
		{"pending is not firing", alertAnswer(node3, grid, `"alertname":"GPUXidFatal","alertstate":"pending","Hostname":"node3"`, []int{1060}),
			nil, nil},
		{"another host's is not the import's; one of no host is",
			alertAnswer(node3, grid, `"alertname":"GPUXidFatal","alertstate":"firing","Hostname":"node4"`, []int{1060},
				`"alertname":"PrometheusRuleFailures","alertstate":"firing"`, []int{1090}),
			[]string{"alert PrometheusRuleFailures firing at 1090 on 1090"}, nil},
		{"several hosts: no host's name before it", alertAnswer([]string{"node3", "node4"}, grid, xid, []int{1060}),
			[]string{xidText + " at 1060 on 1060"}, nil},
		{"outside the samples' span", alertAnswer(node3, grid, xid, []int{900, 915}, `"alertname":"B","alertstate":"firing"`, []int{1400}),
			nil, []string{"2 alert firings before the first sample or after the last left out"}},
		{"a series in two answers (two stretches) is one series", alertAnswer(node3, grid, xid, every(1000, 1060, 15)) + alertAnswer(nil, nil, xid, every(1075, 1300, 15)),
			[]string{xidText + " at 1000 on 1000"}, nil},
		{"hostile labels", alertAnswer(node3, grid, `"alertname":"\u001b[2JBoom","alertstate":"firing","Hostname":"node3","x":"\u001b]8;;http://evil\u0007y\u001b]8;;\u0007"`, []int{1000}),
			[]string{"alert Boom firing: Hostname=node3 x=y at 1000 on 1000"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Read(strings.NewReader(c.in), "alerts.json")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range collect(t, res) {
				for _, m := range s.Markers {
					if m.Origin != timeline.AlertOrigin {
						t.Errorf("marker %q of origin %q", m.Text, m.Origin)
					}
					got = append(got, fmt.Sprintf("%s at %d on %d", m.Text, m.At.Unix(), s.At.Unix()))
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("markers\n%q\nwant\n%q", got, c.want)
			}
			for _, n := range c.notes {
				if !slices.ContainsFunc(res.Info.Notes, func(s string) bool { return strings.Contains(s, n) }) {
					t.Errorf("notes %q, want one with %q", res.Info.Notes, n)
				}
			}
			if len(c.notes) == 0 && len(res.Info.Notes) > 0 {
				t.Errorf("notes %q", res.Info.Notes)
			}
		})
	}
}

// A cluster whose every GPU flaps does not make a recording of markers: the
// first maxAlertMarkers firings are kept, and a note counts the rest.
func TestAlertMarkersBounded(t *testing.T) {
	grid := every(0, 3000, 1)
	flaps := every(0, 3000, 3) // a new firing at every point: gaps of 3 s, step 1 s
	in := alertAnswer([]string{"n"}, grid, `"alertname":"Flap","alertstate":"firing","Hostname":"n"`, flaps)
	res, err := Read(strings.NewReader(in), "flap.json")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	last := time.Time{}
	for _, s := range collect(t, res) {
		n += len(s.Markers)
		for _, m := range s.Markers {
			last = m.At
		}
	}
	if n != maxAlertMarkers || last.Unix() != 3*(maxAlertMarkers-1) {
		t.Errorf("%d markers, the last at %d: want the first %d", n, last.Unix(), maxAlertMarkers)
	}
	want := fmt.Sprintf("%d alert firings in the range: the first %d are markers, the other %d left out", len(flaps), maxAlertMarkers, len(flaps)-maxAlertMarkers)
	if !slices.Contains(res.Info.Notes, want) {
		t.Errorf("notes %q, want %q", res.Info.Notes, want)
	}
}

// Through the stand-in server: the alerts are asked for in the same
// stretches as the GPU series, an alert firing across two stretches is one
// marker, another host's is left out, and an ALERTS query that fails is a
// note, not a failed import.
func TestFetchPrometheusAlerts(t *testing.T) {
	from := fakeStart
	at := func(sec int) int64 { return from.Add(time.Duration(sec) * time.Second).UnixMilli() }
	alerts := []fakeAlert{
		// Across the stretches' seam at 1,000 s.
		{`"alertname":"GPUXidFatal","alertstate":"firing","Hostname":"node01","gpu":"1","severity":"critical"`,
			func(t int64) bool { return t >= at(900) && t < at(1200) }},
		{`"alertname":"GPUXidFatal","alertstate":"firing","Hostname":"node07","gpu":"0"`, func(int64) bool { return true }},
		{`"alertname":"GPUXidFatal","alertstate":"pending","Hostname":"node01","gpu":"0"`, func(int64) bool { return true }},
	}
	q := Query{From: from, To: from.Add(1500 * time.Second), Step: time.Second, MaxPoints: 1000}
	p := &fakeProm{hosts: 2, gpus: 2, alerts: alerts}
	res, err := fetchFake(t, p, q)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range collect(t, res) {
		for _, m := range s.Markers {
			got = append(got, fmt.Sprintf("%s at %d (%s)", m.Text, m.At.Sub(from)/time.Second, m.Origin))
		}
	}
	want := []string{"alert GPUXidFatal firing: Hostname=node01 gpu=1 severity=critical at 900 (alert)"}
	if !slices.Equal(got, want) || len(res.Info.Notes) > 0 {
		t.Errorf("markers %q, notes %q; want %q", got, res.Info.Notes, want)
	}
	if n := p.queries.Load(); n != int64(2*(len(SeriesNames())+1)) {
		t.Errorf("%d queries, want 2 stretches of %d series and ALERTS", n, len(SeriesNames()))
	}

	failing := &fakeProm{hosts: 2, gpus: 2, alerts: alerts, alertsFail: http.StatusUnprocessableEntity}
	res, err = fetchFake(t, failing, q)
	if err != nil {
		t.Fatalf("a failed ALERTS query failed the import: %v", err)
	}
	n := 0
	for _, s := range collect(t, res) {
		n += len(s.Markers)
	}
	note := `alerts not read, so none is a marker: Prometheus says execution: query processing would load too many samples into memory in query execution (query ALERTS{alertstate="firing"})`
	if n != 0 || res.Samples != 1501 || !slices.Contains(res.Info.Notes, note) {
		t.Errorf("%d markers, %d samples, notes %q; want none, 1501 and %q", n, res.Samples, res.Info.Notes, note)
	}
	timelinetest.CheckClean(t, res.Info)
}

// A saved answer of ALERTS alone has no GPU series: refused as any such.
func TestReadPrometheusAlertsAlone(t *testing.T) {
	in := alertAnswer(nil, nil, `"alertname":"A","alertstate":"firing"`, []int{1000})
	if _, err := Read(bytes.NewReader([]byte(in)), "alerts.json"); err == nil || !strings.Contains(err.Error(), "no GPU series") {
		t.Errorf("error %v, want no GPU series", err)
	}
}
