package prom

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// Totals as well as pieces (issue 44): an answer is read in time linear
// in its bytes and memory bounded by them, whatever its whitespace; an
// import keeps only the range it asked for, and at most the hosts and
// GPUs a recording holds.

// spacedAnswer is an answer of series of GPU utilisation, one per GPU, on
// hosts host0000…, each with the points given (Unix s, value), written
// with a space before each list's ] so that no "]]" ends a list but the
// last series' list.
func spacedAnswer(hosts, gpus int, points func(h, g int) [][2]float64) []byte {
	var b bytes.Buffer
	b.WriteString(`{"status":"success","data":{"resultType":"matrix","result":[`)
	for h := range hosts {
		for g := range gpus {
			if h+g > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","Hostname":"host%04d","gpu":"%d"},"values":[`, h, g)
			pts := points(h, g)
			for i, p := range pts {
				if i > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, `[%g,"%g"]`, p[0], p[1])
				if h < hosts-1 || g < gpus-1 || i < len(pts)-1 {
					b.WriteByte(' ')
				}
			}
			b.WriteString("]}")
		}
	}
	b.WriteString("]}}")
	return b.Bytes()
}

// allocated is the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// 1,024 series whose lists end in "] ]", not "]]": the parser once
// reserved a value for every [ up to the next "]]" anywhere after, for
// every series (99 MB here, 2 GB at 5,000), and a 2 MB answer of 20,000
// took it out of memory. Now it allocates a few times the answer's size,
// and reads every point.
func TestReadPrometheusManySeriesWithoutListEndsStaysSmall(t *testing.T) {
	const hosts, gpus = 64, 16
	in := spacedAnswer(hosts, gpus, func(h, g int) [][2]float64 {
		pts := make([][2]float64, 20)
		for i := range pts {
			pts[i] = [2]float64{float64(1764057600 + 15*i), float64(i)} // a new value each: kept as a slice
		}
		return pts
	})
	var res *Result
	var err error
	n := allocated(func() { res, err = Read(bytes.NewReader(in), "spaced.json") })
	if err != nil {
		t.Fatal(err)
	}
	if n > uint64(40*len(in)) {
		t.Errorf("reading %d KB allocated %d MB", len(in)>>10, n>>20)
	}
	if res.Samples != 20 || len(res.Info.GPUs) != hosts*gpus {
		t.Errorf("%d samples of %d GPUs, want 20 of %d", res.Samples, len(res.Info.GPUs), hosts*gpus)
	}
}

// The same answer pretty-printed (as `jq .` saves it) reads as the
// compact one: the parser never looks ahead for a list's end.
func TestReadPrometheusPrettyPrintedIsTheSame(t *testing.T) {
	compact := spacedAnswer(3, 4, func(h, g int) [][2]float64 {
		return [][2]float64{{1764057600, float64(h)}, {1764057615, float64(g)}, {1764057630, 50}}
	})
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, compact, "", "    "); err != nil {
		t.Fatal(err)
	}
	read := func(b []byte) []timeline.Sample {
		res, err := Read(bytes.NewReader(b), "a.json")
		if err != nil {
			t.Fatal(err)
		}
		return collect(t, res)
	}
	// Printed with their keys: each read makes columns of its own.
	show := func(ss []timeline.Sample) string {
		out := ""
		for _, s := range ss {
			out += fmt.Sprint(s.At, s.Metrics(), s.Probes, s.Processes, s.Owners, s.Markers, s.Progress) + "\n"
		}
		return out
	}
	a, b := show(read(compact)), show(read(pretty.Bytes()))
	if a != b {
		t.Errorf("pretty-printed answer read differently:\n%v\n%v", a, b)
	}
}

// Every GPU's points at times of its own (hosts that scrape out of step):
// a sample per time, each with its GPU's point alone, in time order.
func TestReadPrometheusPointsAtTheirOwnTimes(t *testing.T) {
	const hosts, gpus, points = 20, 4, 5
	in := spacedAnswer(hosts, gpus, func(h, g int) [][2]float64 {
		pts := make([][2]float64, points)
		for i := range pts {
			// Each GPU 1 ms after the one before, all within a step.
			pts[i] = [2]float64{1764057600 + float64(15*i) + float64(h*gpus+g)/1000, float64(h + g + i)}
		}
		return pts
	})
	res, err := Read(bytes.NewReader(in), "own-times.json")
	if err != nil {
		t.Fatal(err)
	}
	samples := collect(t, res)
	if len(samples) != hosts*gpus*points {
		t.Fatalf("%d samples, want %d", len(samples), hosts*gpus*points)
	}
	for i, s := range samples {
		if s.Len() != 1 || s.Columns.Key(0).Device != timeline.GPUDevice(i%(hosts*gpus)) {
			t.Fatalf("sample %d: %v", i, s.Metrics())
		}
	}
}

// BenchmarkReadPrometheusOwnTimes: 1,000 hosts of 16 GPUs whose points lie
// at their own times (16,000 times a step; 100 hosts under -short).
// Finding each next time by looking at every series took 93 s for such an
// import.
func BenchmarkReadPrometheusOwnTimes(b *testing.B) {
	hosts, points := 1000, 4
	if testing.Short() {
		hosts = 100
	}
	in := spacedAnswer(hosts, 16, func(h, g int) [][2]float64 {
		pts := make([][2]float64, points)
		for i := range pts {
			pts[i] = [2]float64{1764057600 + float64(15*i) + float64(h*16+g)/1000, 50}
		}
		return pts
	})
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		res, err := Read(bytes.NewReader(in), "own-times.json")
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		if err := res.Each(func(*timeline.Sample) error { n++; return nil }); err != nil || n != hosts*16*points {
			b.Fatal(n, err)
		}
	}
}

// BenchmarkReadPrometheusPretty: an answer as `jq .` writes it, 2,000
// series of 100 points. A look for "]]" per series made it quadratic.
func BenchmarkReadPrometheusPretty(b *testing.B) {
	compact := spacedAnswer(125, 16, func(h, g int) [][2]float64 {
		pts := make([][2]float64, 100)
		for i := range pts {
			pts[i] = [2]float64{float64(1764057600 + 15*i), float64(i % 7)}
		}
		return pts
	})
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, compact, "", "  "); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(pretty.Len()))
	for b.Loop() {
		if _, err := Read(bytes.NewReader(pretty.Bytes()), "pretty.json"); err != nil {
			b.Fatal(err)
		}
	}
}

// More hosts and GPUs than a recording holds: the first 1,024 hosts and
// 16,384 GPUs answered are kept, and a note counts the series left out;
// the description passes the recording's limits.
func TestReadPrometheusHostsAndGPUsBounded(t *testing.T) {
	in := spacedAnswer(timeline.MaxHosts+6, 17, func(h, g int) [][2]float64 {
		return [][2]float64{{1764057600, 50}}
	})
	res, err := Read(bytes.NewReader(in), "huge.json")
	if err != nil {
		t.Fatal(err)
	}
	// 963 hosts of 17 GPUs are 16,371; a 964th host has room for 13.
	if len(res.Info.GPUs) != timeline.MaxGPUs || len(res.Info.Hosts) != 964 {
		t.Errorf("%d GPUs on %d hosts", len(res.Info.GPUs), len(res.Info.Hosts))
	}
	if err := res.Info.CheckLimits(); err != nil {
		t.Error(err)
	}
	left := (timeline.MaxHosts+6)*17 - timeline.MaxGPUs
	if !hasPromNote(res, fmt.Sprintf("%d series of GPUs past the 1024 hosts or 16384 GPUs a recording holds left out", left)) {
		t.Errorf("notes %q", res.Info.Notes)
	}
	many := spacedAnswer(timeline.MaxHosts+6, 1, func(h, g int) [][2]float64 { return [][2]float64{{1764057600, 50}} })
	if res, err = Read(bytes.NewReader(many), "hosts.json"); err != nil {
		t.Fatal(err)
	}
	if len(res.Info.Hosts) != timeline.MaxHosts || !hasPromNote(res, "6 series of GPUs past") {
		t.Errorf("%d hosts; notes %q", len(res.Info.Hosts), res.Info.Notes)
	}
}

// A server that answers with a year of points before --from (and after
// --to): none of them is kept, and a note says how many were left out.
func TestFetchPrometheusLeavesOutPointsOutsideTheRange(t *testing.T) {
	from := fakeStart
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		b.WriteString(`{"status":"success","data":{"resultType":"matrix","result":[`)
		if strings.Contains(r.URL.Query().Get("query"), "DCGM_FI_DEV_GPU_UTIL") {
			b.WriteString(`{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0"},"values":[`)
			sep := ""
			for d := -365; d < 0; d++ { // a point a day for a year before
				fmt.Fprintf(&b, `%s[%d,"10"]`, sep, from.Add(time.Duration(d)*24*time.Hour).Unix())
				sep = ","
			}
			for i := range 5 {
				fmt.Fprintf(&b, `,[%d,"50"]`, from.Add(time.Duration(i)*15*time.Second).Unix())
			}
			fmt.Fprintf(&b, `,[%d,"90"]]}`, from.Add(48*time.Hour).Unix())
		}
		b.WriteString(`]}}`)
		w.Write([]byte(b.String()))
	}))
	t.Cleanup(srv.Close)
	res, err := Fetch(t.Context(), Query{URL: srv.URL, From: from, To: from.Add(time.Minute), Step: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Samples != 5 || !res.First.Equal(from) {
		t.Errorf("%d samples from %v, want 5 from %v", res.Samples, res.First, from)
	}
	if !hasPromNote(res, "366 points outside the range asked for left out") {
		t.Errorf("notes %q", res.Info.Notes)
	}
}

// An import past its total of points fails in one line, whichever query
// passes it.
func TestFetchPrometheusBoundsItsPointsInAll(t *testing.T) {
	old := maxImportPoints
	maxImportPoints = 1000
	t.Cleanup(func() { maxImportPoints = old })
	_, err := fetchFake(t, &fakeProm{hosts: 2, gpus: 2}, Query{From: fakeStart, To: fakeStart.Add(100 * time.Second), Step: time.Second})
	if err == nil || !strings.Contains(err.Error(), "more than 1000 points in the range asked; narrow --match") || strings.Contains(err.Error(), "\n") {
		t.Errorf("err = %v", err)
	}
}
