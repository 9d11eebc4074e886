package prom

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

func readPromTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "prometheus", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// collect runs Each and keeps copies of the samples.
func collect(t testing.TB, res *Result) []timeline.Sample {
	t.Helper()
	var out []timeline.Sample
	err := res.Each(func(s *timeline.Sample) error {
		c := *s
		c.Values = slices.Clone(s.Values)
		out = append(out, c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != res.Samples {
		t.Fatalf("Each wrote %d samples, Samples says %d", len(out), res.Samples)
	}
	checkPromSamples(t, res, out)
	return out
}

// checkPromSamples checks what every import promises: samples in strictly
// increasing time, from First to Last, each metric of a GPU the header
// lists, once, and never NaN.
func checkPromSamples(t testing.TB, res *Result, samples []timeline.Sample) {
	t.Helper()
	gpus := map[string]bool{}
	for _, g := range res.Info.GPUs {
		gpus[timeline.GPUDevice(g.Index)] = true
	}
	for i, s := range samples {
		if i > 0 && !s.At.After(samples[i-1].At) {
			t.Fatalf("sample %d at %v, not after %v", i, s.At, samples[i-1].At)
		}
		seen := map[timeline.Key]bool{}
		for _, m := range s.Metrics() {
			if !gpus[m.Key.Device] || seen[m.Key] || math.IsNaN(m.Value) {
				t.Fatalf("sample %d: metric %v = %v (devices %v, repeated %v)", i, m.Key, m.Value, gpus, seen[m.Key])
			}
			seen[m.Key] = true
		}
	}
	if len(samples) > 0 && (!samples[0].At.Equal(res.First) || !samples[len(samples)-1].At.Equal(res.Last)) {
		t.Fatalf("First/Last %v/%v, samples %v/%v", res.First, res.Last, samples[0].At, samples[len(samples)-1].At)
	}
}

func promValue(s timeline.Sample, name, device string) (float64, bool) {
	for _, m := range s.Metrics() {
		if m.Key.Name == name && m.Key.Device == device {
			return m.Value, true
		}
	}
	return 0, false
}

// Saved answers of the real Prometheus, six one after another: two hosts,
// each GPU numbered across the session, hosts in name order, values in
// gputop's units.
func TestReadPrometheusSavedAnswersOfTwoHosts(t *testing.T) {
	res, err := Read(bytes.NewReader(readPromTestdata(t, "two-hosts-concatenated.json")), "saved.json")
	if err != nil {
		t.Fatal(err)
	}
	if res.Info.Kind != timeline.Imported || res.Info.Origin != "saved.json (prometheus)" {
		t.Errorf("kind %v origin %q", res.Info.Kind, res.Info.Origin)
	}
	if len(res.Info.Hosts) != 2 || res.Info.Hosts[0].Name != "node-a" || res.Info.Hosts[1].Name != "node-b" {
		t.Fatalf("hosts %+v, want node-a and node-b", res.Info.Hosts)
	}
	if h := res.Info.Hosts[0]; h.Driver == "" || len(h.Notes) != 1 || !strings.Contains(h.Notes[0], "demo (imbalance)") {
		t.Errorf("node-a from gputop_info: %+v", h)
	}
	want := []struct {
		host      string
		hostIndex int
	}{{"node-a", 0}, {"node-a", 1}, {"node-b", 0}, {"node-b", 1}}
	if len(res.Info.GPUs) != len(want) {
		t.Fatalf("GPUs %+v", res.Info.GPUs)
	}
	for i, g := range res.Info.GPUs {
		if g.Index != i || g.Host != want[i].host || g.HostIndex != want[i].hostIndex || g.Name != "NVIDIA H100 80GB HBM3" || !strings.HasPrefix(g.UUID, "GPU-") || !g.GPM {
			t.Errorf("GPU %d: %+v, want %v", i, g, want[i])
		}
	}
	if res.Info.Interval != time.Second {
		t.Errorf("interval %v, want the answers' 1s", res.Info.Interval)
	}
	samples := collect(t, res)
	if len(samples) != 21 {
		t.Fatalf("%d samples, want 21", len(samples))
	}
	// node-a is the imbalance demo: its GPU1 works, its GPU0 idles.
	s := samples[10]
	util1, _ := promValue(s, timeline.GPUUtil, "gpu1")
	util0, _ := promValue(s, timeline.GPUUtil, "gpu0")
	mem, _ := promValue(s, timeline.GPUMemUsed, "gpu2")
	sm, _ := promValue(s, timeline.GPUSMActive, "gpu2")
	if util1 < 40 || util0 > 5 {
		t.Errorf("node-a util: GPU0 %v GPU1 %v", util0, util1)
	}
	if mem < 10<<30 || mem > 80<<30 {
		t.Errorf("node-b GPU0 memory %v bytes: want MiB × 2^20, tens of GiB", mem)
	}
	if sm < 1 || sm > 100 {
		t.Errorf("SM active %v: want the 0-1 ratio as a %%", sm)
	}
	var energy timeline.Metric
	for _, m := range s.Metrics() {
		if m.Key == (timeline.Key{Name: timeline.GPUEnergy, Device: "gpu3"}) {
			energy = m
		}
	}
	if energy.Kind != timeline.Counter || energy.Value <= 0 {
		t.Fatalf("energy %+v: want a counter", energy)
	}
	// Energy in J derives the power over the second between samples, which
	// must agree with the POWER_USAGE gauge within the demo's wobble.
	values := timeline.Derive(&samples[11], &samples[10])
	for _, v := range values {
		if v.Key == (timeline.Key{Name: timeline.GPUPower, Device: "gpu3"}) {
			gauge, _ := promValue(samples[11], timeline.GPUPower, "gpu3")
			if v.Value < 100 || v.Value > 800 || math.Abs(v.Value-gauge) > 0.3*gauge {
				t.Errorf("power from energy %v W, gauge %v W", v.Value, gauge)
			}
		}
	}
}

// The same answers as a JSON array import the same.
func TestReadPrometheusArrayOfAnswers(t *testing.T) {
	raw := readPromTestdata(t, "two-hosts-concatenated.json")
	lines := bytes.Split(bytes.TrimSpace(raw), []byte("\n"))
	array := append([]byte("[\n"), bytes.Join(lines, []byte(",\n"))...)
	array = append(array, "\n]"...)
	a, err := Read(bytes.NewReader(array), "x")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Read(bytes.NewReader(raw), "x")
	if err != nil {
		t.Fatal(err)
	}
	sa, sb := collect(t, a), collect(t, b)
	if len(sa) != len(sb) || len(a.Info.GPUs) != len(b.Info.GPUs) {
		t.Fatalf("array: %d samples of %d GPUs; concatenated: %d of %d", len(sa), len(a.Info.GPUs), len(sb), len(b.Info.GPUs))
	}
	for i := range sa {
		if sa[i].Len() != sb[i].Len() {
			t.Fatalf("sample %d differs", i)
		}
	}
}

// A target that stopped answering is a gap in its host's series: no
// metric of its GPUs in those samples, the other host's still there.
func TestReadPrometheusGapIsAGap(t *testing.T) {
	res, err := Read(bytes.NewReader(readPromTestdata(t, "gap-target-down.json")), "gap.json")
	if err != nil {
		t.Fatal(err)
	}
	samples := collect(t, res)
	if len(samples) != 26 {
		t.Fatalf("%d samples, want 26", len(samples))
	}
	for i, s := range samples {
		_, a := promValue(s, timeline.GPUUtil, "gpu0")
		_, b := promValue(s, timeline.GPUUtil, "gpu1")
		inGap := i >= 11 && i <= 18
		if !a || b == inGap {
			t.Errorf("sample %d (+%ds): node-a %v node-b %v; node-b is down from +11s to +18s", i, i, a, b)
		}
	}
}

// An instant vector (a saved /api/v1/query) is one sample.
func TestReadPrometheusInstantVector(t *testing.T) {
	res, err := Read(bytes.NewReader(readPromTestdata(t, "instant-vector.json")), "v.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Info.Hosts) != 2 || len(res.Info.GPUs) != 2 || res.Info.GPUs[1].HostIndex != 1 {
		t.Fatalf("info %+v", res.Info)
	}
	samples := collect(t, res)
	if _, ok := promValue(samples[0], timeline.GPUUtil, "gpu1"); len(samples) != 1 || !ok {
		t.Fatalf("samples %+v", samples)
	}
}

// A single host keeps its GPUs' own numbers and is the source's host, as
// in a recording made on it.
func TestReadPrometheusOneHost(t *testing.T) {
	in := `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"3","Hostname":"node7"},"values":[[1,"50"],[2,"60"]]}]}}`
	res, err := Read(strings.NewReader(in), "v.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Info.Hosts) != 0 || res.Info.Host != "node7" || len(res.Info.GPUs) != 1 || res.Info.GPUs[0].Index != 3 || res.Info.GPUs[0].Host != "" {
		t.Fatalf("one host: %+v", res.Info)
	}
	samples := collect(t, res)
	if v, ok := promValue(samples[1], timeline.GPUUtil, "gpu3"); len(samples) != 2 || v != 60 || !ok {
		t.Fatalf("samples %+v", samples)
	}
}

func TestReadPrometheusRefusesInOneLine(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"empty", "", "empty"},
		{"not JSON", "DCGM_FI_DEV_GPU_UTIL 97\n", "not Prometheus' JSON"},
		{"cut short", `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"2"]`, "not Prometheus' JSON"},
		{"Prometheus' error", string(readPromTestdata(t, "error-bad-data.json")), "Prometheus says bad_data: 1:22: parse error: unexpected end of input inside braces"},
		{"points limit", string(readPromTestdata(t, "error-too-many-points.json")), "exceeded maximum resolution of 11,000 points"},
		{"second answer bad", string(readPromTestdata(t, "instant-vector.json")) + `{"status":"error","error":"boom"}`, "answer 2: Prometheus says: boom"},
		{"no status", `{"data":{}}`, "not an answer of Prometheus' HTTP API"},
		{"scalar", `{"status":"success","data":{"resultType":"scalar","result":[1,"2"]}}`, "not a list of series over time"},
		{"values not pairs", `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0"},"values":[1,2]}]}}`, "pair"},
		{"value not a number", `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0"},"values":[[1,"lots"]]}]}}`, `"lots" is not a number`},
		{"time not a number", `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0"},"values":[["x","1"]]}]}}`, "not Unix seconds"},
		{"no GPU series", `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"node_load1"},"values":[[1,"2"]]}]}}`, "no GPU series among the 1 series found (such as node_load1)"},
		{"no gpu label", `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL"},"values":[[1,"2"]]}]}}`, "without a gpu label"},
		{"nothing", `{"status":"success","data":{"resultType":"matrix","result":[]}}`, "no GPU series"},
		{"only NaN", `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0"},"values":[[1,"NaN"]]}]}}`, "no GPU series"},
	} {
		_, err := Read(strings.NewReader(c.in), "f.json")
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line with %q", c.name, err, c.want)
		}
	}
}

// NaN points (a value Prometheus can hold) are gaps, and a note says so.
func TestReadPrometheusNaNIsAGap(t *testing.T) {
	in := `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0","Hostname":"n"},"values":[[1,"50"],[2,"NaN"],[3,"+Inf"],[4,"60"]]}]}}`
	res, err := Read(strings.NewReader(in), "f.json")
	if err != nil {
		t.Fatal(err)
	}
	samples := collect(t, res)
	if len(samples) != 2 || !strings.Contains(strings.Join(res.Info.Notes, "\n"), "2 points NaN or infinite: read as gaps") {
		t.Errorf("%d samples, notes %q", len(samples), res.Info.Notes)
	}
}

// dcgm-exporter's default list has FB_USED and FB_FREE but not FB_TOTAL:
// the total is their sum, and a note says what it leaves out.
func TestReadPrometheusMemoryTotalFromUsedAndFree(t *testing.T) {
	in := `{"status":"success","data":{"resultType":"matrix","result":[` +
		`{"metric":{"__name__":"DCGM_FI_DEV_FB_USED","gpu":"0","instance":"10.0.0.1:9400"},"values":[[1,"1024"],[2,"2048"]]},` +
		`{"metric":{"__name__":"DCGM_FI_DEV_FB_FREE","gpu":"0","instance":"10.0.0.1:9400"},"values":[[1,"80000"],[2,"78976"]]}]}}`
	res, err := Read(strings.NewReader(in), "f.json")
	if err != nil {
		t.Fatal(err)
	}
	if res.Info.Host != "10.0.0.1" {
		t.Errorf("host %q: want the instance without its port", res.Info.Host)
	}
	if got := res.Info.GPUs[0].MemTotal; got != 81024*(1<<20) {
		t.Errorf("MemTotal %v", got)
	}
	samples := collect(t, res)
	if v, ok := promValue(samples[1], timeline.GPUMemTotal, "gpu0"); !ok || v != 81024*(1<<20) {
		t.Errorf("gpu.mem_total %v %v", v, ok)
	}
	if _, ok := promValue(samples[1], "", "gpu0"); ok {
		t.Error("FB_FREE leaked into the samples as a metric without a name")
	}
	if !strings.Contains(strings.Join(res.Info.Notes, "\n"), "FB_USED + FB_FREE") {
		t.Errorf("notes %q", res.Info.Notes)
	}
}

func fetchFake(t *testing.T, p *fakeProm, q Query) (*Result, error) {
	t.Helper()
	srv := startFakeProm(t, p)
	q.URL = srv.URL
	return Fetch(context.Background(), q)
}

// A range longer than Prometheus' points limit is asked for in stretches
// under it, and comes back whole: one sample per step, no seams.
func TestFetchPrometheusInChunksUnderThePointsLimit(t *testing.T) {
	p := &fakeProm{hosts: 2, gpus: 2}
	// Three stretches of at most 1,000 points (10,000 by default: the
	// same arithmetic, quicker to test).
	const steps = 2_500
	res, err := fetchFake(t, p, Query{From: fakeStart, To: fakeStart.Add(steps * time.Second), Step: time.Second, Match: `{job="dcgm"}`, MaxPoints: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.maxPoints.Load(); got != 1000 {
		t.Errorf("the largest query asked for %d points per series, want 1000", got)
	}
	if want := int64(3 * (len(SeriesNames()) + 1)); p.queries.Load() != want { // and ALERTS
		t.Errorf("%d queries, want %d", p.queries.Load(), want)
	}
	if res.Samples != steps+1 || !res.First.Equal(fakeStart) || res.Info.Interval != time.Second {
		t.Errorf("%d samples from %v every %v", res.Samples, res.First, res.Info.Interval)
	}
	if len(res.Info.Hosts) != 2 || len(res.Info.GPUs) != 4 || res.Info.GPUs[3].PCIBusID != "00000000:18:00.0" {
		t.Errorf("info %+v", res.Info)
	}
	if !strings.Contains(res.Info.Origin, `{job="dcgm"}`) {
		t.Errorf("origin %q: want the URL and the selector", res.Info.Origin)
	}
	n := 0
	err = res.Each(func(s *timeline.Sample) error {
		if s.Len() != 4*promMetricsKept() {
			t.Fatalf("sample %d at %v has %d metrics", n, s.At, s.Len())
		}
		n++
		return nil
	})
	if err != nil || n != steps+1 {
		t.Fatalf("Each: %d samples, %v", n, err)
	}
}

// A host down for ten minutes is a gap in the import, not zeros.
func TestFetchPrometheusGapsStayGaps(t *testing.T) {
	down := [2]int64{fakeStart.Add(10 * time.Minute).UnixMilli(), fakeStart.Add(20 * time.Minute).UnixMilli()}
	p := &fakeProm{hosts: 2, gpus: 1, gap: func(h int, at int64) bool { return h == 1 && at >= down[0] && at < down[1] }}
	res, err := fetchFake(t, p, Query{From: fakeStart, To: fakeStart.Add(time.Hour), Step: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	samples := collect(t, res)
	for _, s := range samples {
		_, on := promValue(s, timeline.GPUUtil, "gpu1")
		if at := s.At.UnixMilli(); on == (at >= down[0] && at < down[1]) {
			t.Fatalf("at %v node01's GPU has util %v", s.At, on)
		}
	}
}

func TestFetchPrometheusRefusesInOneLine(t *testing.T) {
	hour := Query{From: fakeStart, To: fakeStart.Add(time.Hour), Step: 15 * time.Second}
	// A port held by a socket bound but not listening refuses connections
	// for the whole test; one listened on and closed could be taken by the
	// fake's next server.
	closed := func() string {
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Close(fd) })
		if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
			t.Fatal(err)
		}
		sa, err := syscall.Getsockname(fd)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("http://127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
	}()
	for _, c := range []struct {
		name string
		q    Query
		url  string // "" for the fake
		want string
	}{
		{"unreachable", hour, closed, "cannot reach Prometheus at " + closed + ": connect: connection refused"},
		{"not a URL", hour, "ftp://x", "is not Prometheus' address"},
		{"empty range", Query{From: fakeStart, To: fakeStart, Step: time.Second}, "", "the range is empty: 2026-11-24T08:00:00Z is not before 2026-11-24T08:00:00Z"},
		{"matches nothing", Query{From: hour.From, To: hour.To, Step: hour.Step, Match: `job="none"`}, "", `no GPU series match {job="none"} from 2026-11-24T08:00:00Z to 2026-11-24T09:00:00Z`},
		{"a series as selector", Query{From: hour.From, To: hour.To, Step: hour.Step, Match: `up{job="x"}`}, "", "give only label matchers"},
		{"step too fine", Query{From: hour.From, To: hour.From.Add(365 * 24 * time.Hour), Step: time.Millisecond}, "", "give a larger step"},
		{"too many points for Prometheus", Query{From: hour.From, To: hour.From.Add(20000 * time.Second), Step: time.Second, MaxPoints: 20000}, "", "Prometheus says bad_data: exceeded maximum resolution of 11,000 points per timeseries"},
	} {
		var err error
		if c.url != "" {
			c.q.URL = c.url
			_, err = Fetch(context.Background(), c.q)
		} else {
			_, err = fetchFake(t, &fakeProm{hosts: 1, gpus: 1}, c.q)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line with %q", c.name, err, c.want)
		}
	}
}

// Something that is not Prometheus at the address says so.
func TestFetchPrometheusFromSomethingElse(t *testing.T) {
	for _, c := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"a web page", "<html>hello</html>", 404, "answers 404 Not Found to /api/v1/query_range: is it Prometheus' address?"},
		{"broken JSON", `{"status":"success","data":{"resultType":"matrix","result":[{`, 200, "not Prometheus' JSON"},
		{"its error", `{"status":"error","errorType":"execution","error":"query timed out in expression evaluation"}`, 503, "Prometheus says execution: query timed out"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(c.status)
			w.Write([]byte(c.body))
		}))
		defer srv.Close()
		_, err := Fetch(context.Background(), Query{URL: srv.URL, From: fakeStart, To: fakeStart.Add(time.Minute), Step: time.Second})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line with %q", c.name, err, c.want)
		}
	}
}

// Every stretch asks Prometheus for at most its points limit, and together
// they cover the range a step apart.
func TestPromChunksStayUnderThePointsLimit(t *testing.T) {
	day := 24 * time.Hour
	for _, c := range []struct {
		span   time.Duration
		step   time.Duration
		chunks int
	}{
		{day, 15 * time.Second, 1}, // 5,761 points
		{day, time.Second, 9},      // 86,401
		{7 * day, 15 * time.Second, 5},
		{10_000 * time.Second, time.Second, 2}, // 10,001: one over
		{9_999 * time.Second, time.Second, 1},
		{time.Second, 15 * time.Second, 1},
	} {
		chunks := promChunks(fakeStart, fakeStart.Add(c.span), c.step, defaultMaxPoints)
		points := 0
		for i, ch := range chunks {
			n := int(ch[1].Sub(ch[0])/c.step) + 1
			if n > 11_000 || (i > 0 && ch[0] != chunks[i-1][1].Add(c.step)) {
				t.Errorf("%v at %v: stretch %d %v-%v has %d points", c.span, c.step, i, ch[0], ch[1], n)
			}
			points += n
		}
		if len(chunks) != c.chunks || points != int(c.span/c.step)+1 {
			t.Errorf("%v at %v: %d stretches of %d points in all, want %d of %d", c.span, c.step, len(chunks), points, c.chunks, int(c.span/c.step)+1)
		}
	}
}

// Times are kept as runs; whatever order they come in, all() gives them
// back and the cursor walks them in order.
func TestPointTimes(t *testing.T) {
	for _, c := range []struct {
		name  string
		in    [][]int64 // appended one after another
		runs  int
		incr  bool
		times []int64
	}{
		{"one run", [][]int64{{0, 15, 30, 45}}, 1, true, []int64{0, 15, 30, 45}},
		{"a gap", [][]int64{{0, 15, 30, 90, 105}}, 2, true, []int64{0, 15, 30, 90, 105}},
		{"two stretches that join", [][]int64{{0, 15, 30}, {45, 60}}, 1, true, []int64{0, 15, 30, 45, 60}},
		{"stretches with another step", [][]int64{{0, 15, 30}, {31, 32, 33}}, 2, true, []int64{0, 15, 30, 31, 32, 33}},
		{"single points", [][]int64{{5}, {7}, {20}}, 2, true, []int64{5, 7, 20}},
		{"out of order", [][]int64{{30, 45}, {0, 15}}, 2, false, []int64{30, 45, 0, 15}},
		{"a repeat", [][]int64{{0, 15}, {15, 30}}, 2, false, []int64{0, 15, 15, 30}},
	} {
		var p pointTimes
		for _, part := range c.in {
			var q pointTimes
			for _, at := range part {
				q.add(at)
			}
			p.appendTimes(&q)
		}
		if len(p.runs) != c.runs || p.increasing() != c.incr || !slices.Equal(p.all(), c.times) || p.n != len(c.times) {
			t.Errorf("%s: runs %+v (n %d), increasing %v, all %v", c.name, p.runs, p.n, p.increasing(), p.all())
		}
		var walked []int64
		var cur timeCursor
		for at, ok := p.at(&cur); ok; at, ok = p.at(&cur) {
			if cur.i != len(walked) {
				t.Fatalf("%s: cursor at point %d, walked %d", c.name, cur.i, len(walked))
			}
			walked = append(walked, at)
			p.step(&cur)
		}
		if !slices.Equal(walked, c.times) {
			t.Errorf("%s: cursor walked %v", c.name, walked)
		}
	}
}

// Two exporters on one host give two series of each GPU and metric: they
// are one, the first point at each time kept, and a note counts the rest.
func TestReadPrometheusMergesDuplicateSeries(t *testing.T) {
	in := `{"status":"success","data":{"resultType":"matrix","result":[` +
		`{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0","Hostname":"n","job":"dcgm"},"values":[[1,"10"],[2,"20"]]},` +
		`{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0","Hostname":"n","job":"gputop"},"values":[[2,"99"],[3,"30"]]}]}}`
	res, err := Read(strings.NewReader(in), "f.json")
	if err != nil {
		t.Fatal(err)
	}
	samples := collect(t, res)
	var got []float64
	for _, s := range samples {
		v, _ := promValue(s, timeline.GPUUtil, "gpu0")
		got = append(got, v)
	}
	if !slices.Equal(got, []float64{10, 20, 30}) || !strings.Contains(strings.Join(res.Info.Notes, "\n"), "1 point at a time another series") {
		t.Errorf("values %v, notes %q", got, res.Info.Notes)
	}
}

// Basic auth in the URL reaches Prometheus, and the password stays out of
// the recording.
func TestFetchPrometheusBasicAuthStaysOutOfTheRecording(t *testing.T) {
	fake := &fakeProm{hosts: 1, gpus: 1}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user, pass, ok := r.BasicAuth(); !ok || user != "ops" || pass != "s3cret" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		fake.ServeHTTP(w, r)
	}))
	defer srv.Close()
	u := strings.Replace(srv.URL, "http://", "http://ops:s3cret@", 1)
	res, err := Fetch(context.Background(), Query{URL: u, From: fakeStart, To: fakeStart.Add(time.Minute), Step: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Info.Origin, "s3cret") || !strings.Contains(res.Info.Origin, "ops:xxxxx@") {
		t.Errorf("origin %q", res.Info.Origin)
	}
	_, err = Fetch(context.Background(), Query{URL: srv.URL, From: fakeStart, To: fakeStart.Add(time.Minute), Step: 15 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "answers 401 Unauthorized: give a user and password in the URL") {
		t.Errorf("without the password: %v", err)
	}
}

// Series without Hostname or instance beside series with them: a host of
// their own, named so.
func TestReadPrometheusUnlabelledHost(t *testing.T) {
	in := `{"status":"success","data":{"resultType":"matrix","result":[` +
		`{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0","Hostname":"n1"},"values":[[1,"10"]]},` +
		`{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0"},"values":[[1,"20"]]}]}}`
	res, err := Read(strings.NewReader(in), "f.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Info.Hosts) != 2 || res.Info.Hosts[0].Name != unlabelledHost || res.Info.GPUs[0].Host != unlabelledHost || res.Info.GPUs[1].Host != "n1" {
		t.Errorf("info %+v", res.Info)
	}
	collect(t, res)
}

// gputop serve's last marker comes back as a marker, on the first sample
// at or after it, named by its host among several; one from before the
// range is not the range's.
func TestReadPrometheusMarkers(t *testing.T) {
	in := `{"status":"success","data":{"resultType":"matrix","result":[` +
		`{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0","Hostname":"a"},"values":[[100,"10"],[115,"20"],[130,"30"]]},` +
		`{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0","Hostname":"b"},"values":[[100,"10"],[115,"20"],[130,"30"]]},` +
		`{"metric":{"__name__":"gputop_last_marker_timestamp_seconds","text":"warmup","Hostname":"a"},"values":[[100,"50"],[115,"50"]]},` +
		`{"metric":{"__name__":"gputop_last_marker_timestamp_seconds","text":"epoch 1","Hostname":"a"},"values":[[115,"103.5"],[130,"103.5"]]},` +
		`{"metric":{"__name__":"gputop_last_marker_timestamp_seconds","text":"eval","Hostname":"b"},"values":[[130,"130"]]}]}}`
	res, err := Read(strings.NewReader(in), "f.json")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range collect(t, res) {
		for _, m := range s.Markers {
			got = append(got, fmt.Sprintf("%s at %d on %d (%s)", m.Text, m.At.UnixMilli(), s.At.Unix(), m.Origin))
		}
	}
	want := []string{"a: epoch 1 at 103500 on 115 (import)", "b: eval at 130000 on 130 (import)"}
	if !slices.Equal(got, want) {
		t.Errorf("markers %q, want %q", got, want)
	}
}

// parseDecimal's quick path gives what strconv.ParseFloat gives, and hands
// it everything else.
func TestParseDecimalIsParseFloat(t *testing.T) {
	ins := []string{"0", "97", "-0", "-0.25", "1795584348", "1795584348.5", "1795584348.123", "0.1", "0.3", "99.99",
		"123456789012345", "1234567890123456", "12345678901234567890", "1e3", "1.5E-7", "NaN", "+Inf", "-Inf", "Inf",
		"5.", ".5", "-", "", "1.2.3", "0x10", "1_000", "+5", "007", "81559", "65432.125", "0.000000000000001"}
	for i := range 2000 {
		// Numbers as Prometheus writes them: Go's shortest form.
		v := float64(i*7919%100000) / float64([]int{1, 10, 100, 1000, 3, 7}[i%6])
		ins = append(ins, strconv.FormatFloat(v, 'f', -1, 64), strconv.FormatFloat(-v*1e9, 'f', -1, 64))
	}
	for _, in := range ins {
		want, werr := strconv.ParseFloat(in, 64)
		got, gerr := parseDecimal([]byte(in))
		if (werr == nil) != (gerr == nil) || (werr == nil && got != want && !(math.IsNaN(got) && math.IsNaN(want))) ||
			(werr == nil && math.Signbit(got) != math.Signbit(want)) {
			t.Errorf("%q: %v, %v; ParseFloat %v, %v", in, got, gerr, want, werr)
		}
	}
}

// promMetricsKept is how many of promMetrics are metrics of their own: not
// FB_FREE (a part of mem_total) nor gputop's health series that become
// something else (promhealth.go).
func promMetricsKept() int {
	n := 0
	for _, pm := range promMetrics {
		if pm.metric != "" {
			n++
		}
	}
	return n
}

// TestReadPrometheusOwners checks that the pod labels dcgm-exporter puts on
// an allocated GPU's series, and the hpc_job label of a Slurm job, become
// who held the GPU at each sample: GPU0 held by a pod for its first two
// points, then by a job; GPU1 by no one.
func TestReadPrometheusOwners(t *testing.T) {
	in := `{"status":"success","data":{"resultType":"matrix","result":[` +
		`{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0","Hostname":"n","pod":"train-0","namespace":"ml","container":"trainer"},"values":[[1,"90"],[2,"91"]]},` +
		`{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0","Hostname":"n","hpc_job":"4242"},"values":[[3,"0"],[4,"0"]]},` +
		`{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"1","Hostname":"n"},"values":[[1,"5"],[2,"5"],[3,"5"],[4,"5"]]}]}}`
	res, err := Read(strings.NewReader(in), "owners.json")
	if err != nil {
		t.Fatal(err)
	}
	var got [][]timeline.Owner
	err = res.Each(func(s *timeline.Sample) error {
		got = append(got, s.Owners)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	pod := timeline.Owner{GPU: 0, Pod: "train-0", Namespace: "ml", Container: "trainer"}
	job := timeline.Owner{GPU: 0, Job: "4242"}
	want := [][]timeline.Owner{{pod}, {pod}, {job}, {job}}
	if len(got) != len(want) {
		t.Fatalf("%d samples, want %d", len(got), len(want))
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("sample %d held by %+v, want %+v", i, got[i], want[i])
		}
	}
	// An import that names no owner says nothing of them.
	plain, err := Read(strings.NewReader(`{"status":"success","data":{"resultType":"matrix","result":[`+
		`{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0","Hostname":"n"},"values":[[1,"5"]]}]}}`), "plain.json")
	if err != nil {
		t.Fatal(err)
	}
	_ = plain.Each(func(s *timeline.Sample) error {
		if s.Owners != nil {
			t.Errorf("owners %+v from an import that names none", s.Owners)
		}
		return nil
	})
}
