package recordings

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// update rewrites the golden file and the fuzz corpus:
//
//	go test ./recordings/ -run TestGolden -update
//
// Do it only for a deliberate format change (then bump FormatVersion and
// say so in docs/recording-format.md), or when a new zstd library
// compresses the same records differently, after TestGolden has shown the
// old file still reads.
var update = flag.Bool("update", false, "rewrite testdata/golden.gtr and the fuzz corpus")

const goldenPath = "testdata/golden.gtr"

var goldenStart = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func goldenHeader() Header {
	return Header{
		FormatVersion: FormatVersion,
		Version:       "v0.0.0-golden",
		Start:         goldenStart,
		Info: timeline.SourceInfo{
			Kind: timeline.Demo, Scenario: "training", Host: "golden", Driver: "550.54.15", CUDA: "12.4",
			Interval: time.Second, Command: []string{"python", "train.py"},
			GPUs: []timeline.GPUInfo{{Index: 0, Name: "NVIDIA H100 80GB HBM3", UUID: "GPU-golden-0",
				MemTotal: 85520809984, PowerLimit: math.NaN(), GPM: true}},
		},
	}
}

// goldenSamples are three samples with one of everything: gauges and
// counters, an integer, a decimal, a mean of six, a float sum off by an
// ulp, a raw float, NaN, statuses with an error, a process list, a marker.
func goldenSamples() []timeline.Sample {
	m := func(name, dev string, kind timeline.Kind, v float64) timeline.Metric {
		return timeline.Metric{Key: timeline.Key{Name: name, Device: dev}, Kind: kind, Value: v}
	}
	var out []timeline.Sample
	for i := range 3 {
		at := goldenStart.Add(time.Duration(i) * time.Second)
		s := timeline.Sample{
			At: at,
			Metrics: []timeline.Metric{
				m(timeline.GPUUtil, "gpu0", timeline.Gauge, float64(583+i)/6),
				m(timeline.GPUUtilMax, "gpu0", timeline.Gauge, float64(100-i)),
				m(timeline.GPUPower, "gpu0", timeline.Gauge, 412.345+float64(i)/1000),
				m(timeline.GPUEnergy, "gpu0", timeline.Counter, 1000.5+412.5*float64(i)),
				m(timeline.HostCPUBusySecs, timeline.HostDevice, timeline.Counter, math.Nextafter(float64(3+10*i)/10, 100)),
				m(timeline.HostLoad1, timeline.HostDevice, timeline.Gauge, 1.25),
				m(timeline.SampleLag, timeline.SelfDevice, timeline.Gauge, math.Pi/1000*float64(i+1)),
			},
			Probes: []timeline.ProbeStatus{
				{Probe: "nvml", Device: "gpu0", State: timeline.ProbeOK, Took: 1234 * time.Microsecond},
				{Probe: "host", State: timeline.ProbeOK, Took: 321 * time.Microsecond},
			},
		}
		switch i {
		case 1:
			s.Metrics[5].Value = math.NaN()
			s.Processes = []timeline.Process{{GPU: 0, PID: 4242, User: "alice", Command: "python train.py",
				GPUMem: 60 << 30, SM: 87, CPU: 99.5, RSS: math.NaN(), InJob: true}}
		case 2:
			s.Probes[1] = timeline.ProbeStatus{Probe: "host", State: timeline.ProbeFailed, Took: 5 * time.Millisecond, Err: "permission denied"}
			s.Markers = []timeline.Marker{{At: at.Add(-300 * time.Millisecond), Text: "epoch 1", Origin: "job"}}
		}
		out = append(out, s)
	}
	return out
}

func goldenBytes(t *testing.T) []byte {
	var f memFile
	w, err := newWriter(&f, "golden.gtr", goldenHeader())
	if err != nil {
		t.Fatal(err)
	}
	ss := goldenSamples()
	for i := range ss {
		if err := w.Write(&ss[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return f.Bytes()
}

// TestGolden pins the format: the committed file still reads to the same
// samples, and the writer still writes exactly its bytes.
func TestGolden(t *testing.T) {
	got := goldenBytes(t)
	if *update {
		if err := os.WriteFile(goldenPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		writeFuzzCorpus(t, got)
	}
	r, err := Open(goldenPath)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	h, want := r.Header(), goldenHeader()
	if h.Version != want.Version || !h.Start.Equal(want.Start) || h.FormatVersion != FormatVersion ||
		h.Info.Host != want.Info.Host || !reflect.DeepEqual(h.Info.Command, want.Info.Command) ||
		h.Info.GPUs[0].UUID != want.Info.GPUs[0].UUID || !math.IsNaN(h.Info.GPUs[0].PowerLimit) {
		t.Errorf("golden header reads as %+v", h)
	}
	samples, err := drain(r)
	if err != nil {
		t.Fatal(err)
	}
	ss := goldenSamples()
	if len(samples) != len(ss) {
		t.Fatalf("golden file holds %d samples, want %d", len(samples), len(ss))
	}
	for i := range ss {
		sameSample(t, i, ss[i], samples[i])
	}
	committed, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, committed) {
		t.Errorf("the writer's bytes differ from %s (%d bytes, committed %d): the format changed; see -update", goldenPath, len(got), len(committed))
	}
}

// writeFuzzCorpus writes the fuzz targets' seed corpora: for FuzzReader
// the golden file, and versions of it cut, damaged, unclosed, from the
// future, and garbage; for FuzzRecords its records.
func writeFuzzCorpus(t *testing.T, golden []byte) {
	dir := filepath.Join("testdata", "fuzz", "FuzzReader")
	r, err := openMem(golden)
	if err != nil {
		t.Fatal(err)
	}
	segment := r.segments[0].offset
	indexAt := r.dataEnd
	damaged := append([]byte(nil), golden...)
	damaged[indexAt-20] ^= 0xff
	seeds := map[string][]byte{
		"valid":       golden,
		"unclosed":    golden[:indexAt],
		"torn":        golden[:indexAt-15],
		"header-only": golden[:segment],
		"cut-header":  golden[:segment/2],
		"damaged":     damaged,
		"newer-major": withVersion(golden, Version{Major: FormatVersion.Major + 1}),
		"text":        []byte("utilization.gpu [%], memory.used [MiB]\n97 %, 1024 MiB\n"),
		"empty":       {},
		"garbage":     []byte("\x50\x2a\x4d\x18\xff\xff\xff\x7fgputop-recording\x01\x00"),
	}
	writeSeeds(t, dir, seeds)

	// FuzzRecords: the golden file's records, whole, one chunk, and cut.
	r.load(0)
	records := r.data
	chunk := records[:bytes.IndexByte(records, recSample)+20]
	writeSeeds(t, filepath.Join("testdata", "fuzz", "FuzzRecords"), map[string][]byte{
		"golden":    records,
		"chunk":     chunk,
		"cut":       records[:len(records)/2],
		"one-value": {recKeyDef, 5, 0, 1, 'x', 1, 'y', recSample, 9, 2, 2, 0, 1, 0, opAbsolute, 1, 84, 0}, // x/y = 42
	})
}

func writeSeeds(t *testing.T, dir string, seeds map[string][]byte) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range seeds {
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(data)))
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
