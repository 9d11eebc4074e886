package recordings

import (
	"errors"
	"io"
	"math"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings/format"
	"github.com/gputop-dev/gputop/recordings/recordingstest"
	"github.com/gputop-dev/gputop/timeline"
)

var t0 = recordingstest.T0

// header is a small header for tests.
func header(interval time.Duration) Header {
	return Header{Version: "v0.1.0-test", Info: recordingstest.Info(2, interval), Start: t0}
}

// samples returns n synthetic samples of a small node, with trouble.
func samples(n, gpus int) []timeline.Sample { return recordingstest.Samples(n, gpus) }

func writeFile(t testing.TB, path string, h Header, ss []timeline.Sample) {
	t.Helper()
	w, err := Create(path, h, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ss {
		if err := w.Write(&ss[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// readAll reads a file to its end and returns its samples and the error
// that ended them (nil for a clean io.EOF).
func readAll(t testing.TB, path string) ([]timeline.Sample, error) {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return drain(r)
}

func drain(r *Reader) ([]timeline.Sample, error) {
	var out []timeline.Sample
	for {
		s, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			if _, again := r.Read(); !errors.Is(again, io.EOF) {
				return out, errors.New("Read after the end did not return io.EOF")
			}
			return out, err
		}
		out = append(out, s)
	}
}

// sameSample reports how got differs from want, field by field: float
// values bit for bit, times by Equal, Took to the microsecond (what the
// format keeps), and empty statuses, metrics or markers as nil.
func sameSample(t *testing.T, i int, want, got timeline.Sample) {
	t.Helper()
	if !got.At.Equal(want.At) {
		t.Errorf("sample %d: At %v, want %v", i, got.At, want.At)
	}
	if got.Len() != want.Len() {
		t.Fatalf("sample %d: %d metrics, want %d", i, got.Len(), want.Len())
	}
	for j, m := range want.Metrics() {
		g := got.Metric(j)
		if g.Key != m.Key || g.Kind != m.Kind || math.Float64bits(g.Value) != math.Float64bits(m.Value) {
			t.Fatalf("sample %d metric %d: %v %v %v (%#x), want %v %v %v (%#x)", i, j,
				g.Key, g.Kind, g.Value, math.Float64bits(g.Value), m.Key, m.Kind, m.Value, math.Float64bits(m.Value))
		}
	}
	if len(got.Probes) != len(want.Probes) {
		t.Fatalf("sample %d: %d statuses, want %d", i, len(got.Probes), len(want.Probes))
	}
	for j, st := range want.Probes {
		st.Took = st.Took.Round(time.Microsecond)
		if got.Probes[j] != st {
			t.Errorf("sample %d status %d: %+v, want %+v", i, j, got.Probes[j], st)
		}
	}
	if (got.Processes == nil) != (want.Processes == nil) || len(got.Processes) != len(want.Processes) {
		t.Fatalf("sample %d: processes %v, want %v", i, got.Processes, want.Processes)
	}
	for j, p := range want.Processes {
		g := got.Processes[j]
		for _, f := range [][2]float64{{g.GPUMem, p.GPUMem}, {g.Util, p.Util}, {g.CPU, p.CPU}, {g.RSS, p.RSS}} {
			if math.Float64bits(f[0]) != math.Float64bits(f[1]) {
				t.Errorf("sample %d process %d: %+v, want %+v", i, j, g, p)
			}
		}
		g.GPUMem, g.Util, g.CPU, g.RSS = 0, 0, 0, 0
		p.GPUMem, p.Util, p.CPU, p.RSS = 0, 0, 0, 0
		if (g.Workload == nil) != (p.Workload == nil) || g.Workload != nil && *g.Workload != *p.Workload {
			t.Errorf("sample %d process %d: workload %+v, want %+v", i, j, g.Workload, p.Workload)
		}
		g.Workload, p.Workload = nil, nil
		if g != p {
			t.Errorf("sample %d process %d: %+v, want %+v", i, j, g, p)
		}
	}
	if len(got.Markers) != len(want.Markers) {
		t.Fatalf("sample %d: markers %v, want %v", i, got.Markers, want.Markers)
	}
	for j, m := range want.Markers {
		g := got.Markers[j]
		if !g.At.Equal(m.At) || g.Text != m.Text || g.Origin != m.Origin {
			t.Errorf("sample %d marker %d: %+v, want %+v", i, j, g, m)
		}
	}
	if len(got.Progress) != len(want.Progress) {
		t.Fatalf("sample %d: progress %v, want %v", i, got.Progress, want.Progress)
	}
	for j, p := range want.Progress {
		g := got.Progress[j]
		if !g.At.Equal(p.At) || math.Float64bits(g.Done) != math.Float64bits(p.Done) ||
			math.Float64bits(g.Rate) != math.Float64bits(p.Rate) || g.Unit != p.Unit || g.Origin != p.Origin {
			t.Errorf("sample %d progress %d: %+v, want %+v", i, j, g, p)
		}
	}
	sameOwners(t, i, want.Owners, got.Owners)
}

func TestRoundTrip(t *testing.T) {
	want := samples(400, 2)
	// Values the synth does not make: every kind of float that must survive.
	odd := []float64{math.NaN(), math.Float64frombits(0x7ff8dead00000001), math.Inf(1), math.Inf(-1),
		math.Copysign(0, -1), 0, 5e-324, -5e-324, math.MaxFloat64, -math.MaxFloat64, 1 << 53, 1<<53 + 2,
		math.Nextafter(0.3, 1), 1e-300, 123456.78, -0.001, 97.16666666666667, 1.0 / 3, math.Pi, 4e15 + 0.5}
	for i, v := range odd {
		want[100+i].Values[0] = v
		want[200+i].Values[5] = v
		want[300+i].Processes = []timeline.Process{{GPU: 1, PID: 7, User: "bob", Command: "x", GPUMem: v, Util: -v, CPU: v, RSS: math.NaN()}}
	}
	want[150].Processes = []timeline.Process{} // the process tier ran and found none
	want[151].SetMetrics(append(want[151].Metrics(), timeline.Metric{Key: timeline.Key{Name: timeline.ProcCPUSecs, Device: timeline.JobDevice}, Kind: timeline.Counter, Value: 1.5}))
	want[152].SetMetrics(want[152].Metrics()[:10]) // a probe vanished
	want[153].Probes = append(want[153].Probes, timeline.ProbeStatus{Probe: "nvml", Device: "gpu1", State: timeline.ProbeLost, Took: 1234567 * time.Nanosecond, Err: "GPU is lost"})
	want[154].Markers = append(want[154].Markers, timeline.Marker{At: want[154].At, Text: "ünïcode ✓ marker", Origin: "key"})
	// The job's progress, with its own times (before the sample's).
	for i, p := range []timeline.Progress{
		{Done: 1200, Rate: 49.87, Unit: "it", Origin: "job"},
		{Done: 1250.5, Rate: math.NaN(), Unit: "step", Origin: "mark"},
		{Done: math.NaN(), Rate: 1e6 / 3, Unit: "token", Origin: "import"},
	} {
		p.At = want[160+i].At.Add(-time.Duration(i*137) * time.Millisecond)
		want[160+i].Progress = []timeline.Progress{p}
	}
	want[170].Owners = []timeline.Owner{{GPU: 1, Pod: "p", Namespace: "n", Container: "c"}, {GPU: 0, Job: "7", User: "u", Partition: "gpu"}}
	want[175].Owners = []timeline.Owner{}
	want[163].Progress = []timeline.Progress{{At: want[163].At.Add(-time.Second), Done: 1300, Rate: 50, Unit: "it", Origin: "job"},
		{At: want[163].At, Done: 1350, Rate: 50, Unit: "it", Origin: "job"}}

	path := filepath.Join(t.TempDir(), "run.gtr")
	h := header(time.Second)
	writeFile(t, path, h, want)
	got, err := readAll(t, path)
	if err != nil {
		t.Fatalf("reading back: %v", err)
	}
	if len(got) != len(want) {
		t.Fatalf("read %d samples, want %d", len(got), len(want))
	}
	for i := range want {
		sameSample(t, i, want[i], got[i])
	}

	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	gh := r.Header()
	if gh.FormatVersion != format.FormatVersion || gh.Version != h.Version || !gh.Start.Equal(h.Start) || !reflect.DeepEqual(gh.Info, h.Info) {
		t.Errorf("header read back as %+v, want %+v", gh, h)
	}
	first, last := r.Span()
	if !first.Equal(want[0].At) || !last.Equal(want[len(want)-1].At) {
		t.Errorf("Span() = %v, %v; want %v, %v", first, last, want[0].At, want[len(want)-1].At)
	}
}

func TestHeaderUnknownNumbersAreNull(t *testing.T) {
	h := header(250 * time.Millisecond)
	h.Info.GPUs[1].MemTotal = math.NaN()
	h.Info.GPUs[1].PowerLimit = math.NaN()
	h.Info.Kind, h.Info.Recorded, h.Info.Origin = timeline.Replay, timeline.Imported, "smi.csv"
	h.Info.Command = []string{"python", "train.py"}
	b, err := format.AppendHeaderFrame(nil, h)
	if err != nil {
		t.Fatal(err)
	}
	got, err := format.ParseHeaderContent(b[format.SkippableHeader:])
	if err != nil {
		t.Fatal(err)
	}
	g := got.Info.GPUs[1]
	if !math.IsNaN(g.MemTotal) || !math.IsNaN(g.PowerLimit) {
		t.Errorf("unknown memory and power limit read back as %v, %v; want NaN", g.MemTotal, g.PowerLimit)
	}
	got.Info.GPUs[1].MemTotal, got.Info.GPUs[1].PowerLimit = 0, 0
	h.Info.GPUs[1].MemTotal, h.Info.GPUs[1].PowerLimit = 0, 0
	if !reflect.DeepEqual(got.Info, h.Info) {
		t.Errorf("info read back as %+v, want %+v", got.Info, h.Info)
	}
}
