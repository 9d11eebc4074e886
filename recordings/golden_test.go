package recordings

import (
	"bytes"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings/format"
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

// golden10Path .. golden13Path are the golden files of formats 1.0 (before
// hints), 1.1 (before info records), 1.2 (before hints kept their standing
// and episodes) and 1.3 (before hosts): this reader must read them for as
// long as the major version is 1.
const (
	golden10Path = "testdata/golden-1.0.gtr"
	golden11Path = "testdata/golden-1.1.gtr"
	golden12Path = "testdata/golden-1.2.gtr"
	golden13Path = "testdata/golden-1.3.gtr"
)

var goldenStart = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func goldenHeader() Header {
	return Header{
		FormatVersion: format.FormatVersion,
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

			Probes: []timeline.ProbeStatus{
				{Probe: "nvml", Device: "gpu0", State: timeline.ProbeOK, Took: 1234 * time.Microsecond},
				{Probe: "host", State: timeline.ProbeOK, Took: 321 * time.Microsecond},
			},
		}.WithMetrics([]timeline.Metric{
			m(timeline.GPUUtil, "gpu0", timeline.Gauge, float64(583+i)/6),
			m(timeline.GPUUtilMax, "gpu0", timeline.Gauge, float64(100-i)),
			m(timeline.GPUPower, "gpu0", timeline.Gauge, 412.345+float64(i)/1000),
			m(timeline.GPUEnergy, "gpu0", timeline.Counter, 1000.5+412.5*float64(i)),
			m(timeline.HostCPUBusySecs, timeline.HostDevice, timeline.Counter, math.Nextafter(float64(3+10*i)/10, 100)),
			m(timeline.HostLoad1, timeline.HostDevice, timeline.Gauge, 1.25),
			m(timeline.SampleLag, timeline.SelfDevice, timeline.Gauge, math.Pi/1000*float64(i+1)),
		})
		switch i {
		case 1:
			s.Values[5] = math.NaN()
			s.Processes = []timeline.Process{{GPU: 0, PID: 4242, User: "alice", Command: "python train.py",
				GPUMem: 60 << 30, Util: 87, CPU: 99.5, RSS: math.NaN(), InJob: true,
				// Since 1.4's process details: a start and a workload.
				Started: time.Unix(0, goldenStart.Add(-time.Hour).UnixNano()),
				Workload: &timeline.Workload{Runtime: "containerd", Container: "2032491dcae3",
					Pod: "55c6c714-b240-4dec-9a45-57b61696ab6e", QoS: "burstable"}}}
		case 2:
			s.Probes[1] = timeline.ProbeStatus{Probe: "host", State: timeline.ProbeFailed, Took: 5 * time.Millisecond, Err: "permission denied"}
			s.Markers = []timeline.Marker{{At: at.Add(-300 * time.Millisecond), Text: "epoch 1", Origin: "job"}}
		}
		out = append(out, s)
	}
	return out
}

// goldenSamplesOf are the golden samples as format v keeps them: before
// 1.4's process details, without a process's start and workload.
func goldenSamplesOf(v Version) []timeline.Sample {
	ss := goldenSamples()
	if v.Minor < 4 {
		for i := range ss {
			for j := range ss[i].Processes {
				ss[i].Processes[j].Started, ss[i].Processes[j].Workload = time.Time{}, nil
			}
		}
	}
	return ss
}

// goldenHints are the hint snapshots of the golden file, written after
// the sample of the same index: none after the first, two hints (one on
// the host, one on a GPU, with a confidence of no short decimal form)
// after the second, and the verdict over the run after the last.
func goldenHints() [][]timeline.Hint {
	at := func(s float64) time.Time { return goldenStart.Add(time.Duration(s * float64(time.Second))) }
	return [][]timeline.Hint{
		nil,
		{
			{ID: timeline.HintHostSingleThread, Severity: timeline.Warning, Start: at(-0.5), End: at(1),
				Evidence: "CPU 100 % on one core, 15 idle", Suggestion: "Use more loader workers.", Confidence: 0.85},
			{ID: timeline.HintPowerCapped, Severity: timeline.Info, GPUs: []int{0}, Start: at(0), End: at(1.000000001),
				Evidence: "GPU0 at 700 W of 700 W", Suggestion: "Expected at full load.", Confidence: 1.0 / 3},
		},
		{
			{ID: timeline.HintHostSingleThread, Severity: timeline.Critical, Start: at(-0.5), End: at(2),
				Evidence: "CPU 100 % on one core, 15 idle", Suggestion: "Use more loader workers.", Confidence: 1,
				Ongoing: true, Episodes: []timeline.Episode{
					{Start: at(0.5), End: at(2), Severity: timeline.Critical, Evidence: "CPU 100 % on one core, 15 idle"},
					{Start: at(-0.5), End: at(0), Severity: timeline.Warning, Evidence: "CPU 97 % on one core"},
				}},
			{ID: timeline.HintBusyWait, Severity: timeline.Warning, GPUs: []int{1, 2}, Start: at(1.5), End: at(2),
				Evidence: "GPU1-2 99 % util at 150 W", Suggestion: "Find the rank they wait for.", Confidence: 0.5,
				Provisional: true, Ongoing: true, Episodes: []timeline.Episode{
					{Start: at(1.5), End: at(2), GPUs: []int{1, 2}, Severity: timeline.Warning,
						Evidence: "GPU1-2 99 % util at 150 W", Provisional: true},
				}},
		},
	}
}

// goldenHintsOf is goldenHints as version v keeps them: before 1.3, only
// the third snapshot's first hint, and without standing or episodes.
func goldenHintsOf(v Version) [][]timeline.Hint {
	hs := goldenHints()
	if v.Minor >= 3 {
		return hs
	}
	last := hs[2][0]
	last.Ongoing, last.Episodes = false, nil
	hs[2] = []timeline.Hint{last}
	return hs
}

// goldenInfo is the source's description the golden file records after
// its second sample: a GPU found late, and a note saying so.
func goldenInfo() timeline.SourceInfo {
	in := goldenHeader().Info
	in.GPUs = append(in.GPUs, timeline.GPUInfo{Index: 1, Name: "NVIDIA H100 80GB HBM3", UUID: "GPU-golden-1",
		MemTotal: math.NaN(), PowerLimit: 700})
	in.Notes = []string{"GPU1 found at 03:04:06"}
	return in
}

// goldenBytes writes the golden file with what version v has: hints since
// 1.1, an info record since 1.2, a copy of the header in each segment
// since 1.4. For an older version, what its writer
// wrote but for the version.
func goldenBytes(t *testing.T, v Version) []byte {
	var f memFile
	w, err := newWriter(&f, "golden.gtr", goldenHeader())
	if err != nil {
		t.Fatal(err)
	}
	if v.Minor < 4 { // a copy of the header opens each segment since 1.4
		w.headerCopy = nil
	}
	ss, hs := goldenSamplesOf(v), goldenHintsOf(v)
	for i := range ss {
		if err := w.Write(&ss[i]); err != nil {
			t.Fatal(err)
		}
		if i > 0 && v.Minor >= 1 {
			if err := w.WriteHints(ss[i].At, hs[i]); err != nil {
				t.Fatal(err)
			}
		}
		if i == 1 && v.Minor >= 2 {
			if err := w.WriteInfo(goldenInfo()); err != nil {
				t.Fatal(err)
			}
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
	got := goldenBytes(t, format.FormatVersion)
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
	if h.Version != want.Version || !h.Start.Equal(want.Start) || h.FormatVersion != format.FormatVersion ||
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
	var snaps []HintSnapshot
	for i, hs := range goldenHints()[1:] {
		snaps = append(snaps, HintSnapshot{At: ss[i+1].At, Hints: hs})
	}
	sameSnapshots(t, "golden", snaps, r.Hints())
	if got, want := r.Info(), goldenInfo(); !sameInfo(got, want) {
		t.Errorf("golden info reads as %+v, want %+v", got, want)
	}
	committed, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, committed) {
		t.Errorf("the writer's bytes differ from %s (%d bytes, committed %d): the format changed; see -update", goldenPath, len(got), len(committed))
	}
}

// TestGoldenOlder reads the golden files of formats 1.0, 1.1 and 1.2: the
// same samples, the hints each had (none in 1.0), and no info records
// before 1.2, so the header's description throughout. Without what a
// version added, the writer still writes their bytes, but for the version:
// 1.1 and 1.2 only added record types, 1.3 only what follows a hint
// record's hints, 1.4 only header fields the golden header leaves empty.
func TestGoldenOlder(t *testing.T) {
	for _, c := range []struct {
		path    string
		version Version
	}{{golden10Path, Version{Major: 1, Minor: 0}}, {golden11Path, Version{Major: 1, Minor: 1}}, {golden12Path, Version{Major: 1, Minor: 2}}, {golden13Path, Version{Major: 1, Minor: 3}}} {
		r, err := Open(c.path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if v := r.Header().FormatVersion; v != c.version {
			t.Errorf("%s is format %v, want %v", c.path, v, c.version)
		}
		samples, err := drain(r)
		if err != nil {
			t.Fatal(err)
		}
		ss := goldenSamplesOf(c.version)
		if len(samples) != len(ss) {
			t.Fatalf("%s holds %d samples, want %d", c.path, len(samples), len(ss))
		}
		for i := range ss {
			sameSample(t, i, ss[i], samples[i])
		}
		var snaps []HintSnapshot
		for i, hs := range goldenHintsOf(c.version)[1:] {
			if c.version.Minor >= 1 {
				snaps = append(snaps, HintSnapshot{At: ss[i+1].At, Hints: hs})
			}
		}
		sameSnapshots(t, c.path, snaps, r.Hints())
		want := goldenHeader().Info
		if c.version.Minor >= 2 {
			want = goldenInfo()
		}
		if !sameInfo(r.Info(), want) {
			t.Errorf("%s: info %+v, want %+v", c.path, r.Info(), want)
		}
		committed, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := withVersion(goldenBytes(t, c.version), c.version); !bytes.Equal(got, committed) {
			t.Errorf("without what came after %v, the writer's bytes differ from %s but for the version", c.version, c.path)
		}
	}
}

// writeFuzzCorpus writes the fuzz targets' seed corpora: for FuzzReader
// the golden files (1.2 with hints and an info record, 1.1, 1.0), and versions of the first
// cut, damaged, unclosed, from the future, and garbage; for FuzzRecords
// its records, hint, info and owner records; for FuzzBitFlips, bits to flip.
func writeFuzzCorpus(t *testing.T, golden []byte) {
	dir := filepath.Join("testdata", "fuzz", "FuzzReader")
	r, err := openMem(golden)
	if err != nil {
		t.Fatal(err)
	}
	segment := r.segments[0].Offset
	indexAt := r.dataEnd
	damaged := append([]byte(nil), golden...)
	damaged[indexAt-20] ^= 0xff
	golden10, err := os.ReadFile(golden10Path)
	if err != nil {
		t.Fatal(err)
	}
	golden11, err := os.ReadFile(golden11Path)
	if err != nil {
		t.Fatal(err)
	}
	golden12, err := os.ReadFile(golden12Path)
	if err != nil {
		t.Fatal(err)
	}
	golden13, err := os.ReadFile(golden13Path)
	if err != nil {
		t.Fatal(err)
	}
	seeds := map[string][]byte{
		"valid":       golden,
		"valid-1.3":   golden13,
		"valid-1.0":   golden10,
		"valid-1.1":   golden11,
		"valid-1.2":   golden12,
		"unclosed":    golden[:indexAt],
		"torn":        golden[:indexAt-15],
		"header-only": golden[:segment],
		"cut-header":  golden[:segment/2],
		"damaged":     damaged,
		"newer-major": withVersion(golden, Version{Major: format.FormatVersion.Major + 1}),
		"text":        []byte("utilization.gpu [%], memory.used [MiB]\n97 %, 1024 MiB\n"),
		"empty":       {},
		"garbage":     []byte("\x50\x2a\x4d\x18\xff\xff\xff\x7fgputop-recording\x01\x00"),
	}
	hostile := hostileSeeds(t)
	maps.Copy(seeds, hostile)
	writeSeeds(t, dir, seeds)
	writeStreamSeeds(t, hostile)

	// FuzzRecords: the golden file's records, whole, one chunk, and cut.
	r.load(0)
	records := r.data
	chunk := records[:bytes.IndexByte(records, format.RecSample)+20]
	// And hints: carried into a segment, after a sample, and cut short.
	var e format.Encoder
	e.Reset()
	ss, hs := goldenSamples(), goldenHints()
	hints := e.AppendHints(nil, ss[0].At.UnixNano()-1, format.HintsCarried, hs[2])
	hints = e.AppendSample(hints, &ss[0])
	hints = e.AppendHints(hints, ss[0].At.UnixNano(), 0, hs[1])
	// And info records: before a sample, and between a sample and its hints.
	info, err := format.MarshalInfo(goldenInfo())
	if err != nil {
		t.Fatal(err)
	}
	e.Reset()
	infos := format.AppendRecord(nil, format.RecInfo, info)
	infos = e.AppendSample(infos, &ss[0])
	infos = format.AppendRecord(infos, format.RecInfo, info)
	infos = e.AppendHints(infos, ss[0].At.UnixNano(), 0, hs[1])
	// And owners: a list, then an answer of none.
	e.Reset()
	owned := ownedSamples()
	owners := e.AppendSample(nil, &owned[0])
	owners = e.AppendSample(owners, &owned[5])
	writeSeeds(t, filepath.Join("testdata", "fuzz", "FuzzRecords"), map[string][]byte{
		"golden":    records,
		"chunk":     chunk,
		"cut":       records[:len(records)/2],
		"one-value": {format.RecKeyDef, 5, 0, 1, 'x', 1, 'y', format.RecSample, 9, 2, 2, 0, 1, 0, format.OpAbsolute, 1, 84, 0}, // x/y = 42
		"hints":     hints,
		"hints-cut": hints[:len(hints)-5],
		"info":      infos,
		"owners":    owners,
	})
	writeBitFlipSeeds(t)
}

// writeBitFlipSeeds writes FuzzBitFlips' seed corpus: a bit flipped in
// each kind of place (a segment header, a zstd frame's magic, a block
// header and its last-block bit, a chunk, the index, the trailer, the
// file's header), in two segments, and in files cut short or never closed.
func writeBitFlipSeeds(t *testing.T) {
	file := newBitFlipFile(t)
	seg := file.segments[1]
	indexAt := file.segEnd[len(file.segEnd)-1]
	bits := func(at ...int64) []byte {
		var out []byte
		for _, bit := range at {
			out = append(out, byte(bit), byte(bit>>8), byte(bit>>16))
		}
		return out
	}
	chunk := 8 * (file.ends[14] + file.ends[15]) / 2
	seeds := map[string]struct {
		flips []byte
		cut   uint32
	}{
		"nothing":        {nil, 0},
		"segment-header": {bits(8*(seg+format.SkippableHeader) + 3), 0},
		"zstd-magic":     {bits(8*(seg+format.SegmentFrame) + 1), 0},
		"block-size":     {bits(8*(seg+format.SegmentFrame+6) + 7), 0},
		"last-block":     {bits(8 * (seg + format.SegmentFrame + 6)), 0},
		"chunk":          {bits(chunk), 0},
		"two-segments":   {bits(chunk, 8*(file.ends[44]+file.ends[45])/2), 0},
		"index":          {bits(8*(indexAt+format.SkippableHeader) + 2), 0},
		"trailer":        {bits(8*int64(len(file.data)-4) + 5), 0},
		"file-header":    {bits(8*40 + 1), 0},
		"unclosed":       {bits(chunk), uint32(indexAt) + 1},
		"unclosed-first": {bits(8*(file.segments[0]+format.SkippableHeader) + 3), uint32(indexAt) + 1},
		"cut-short":      {bits(chunk), uint32(file.ends[53]+5) + 1},
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzBitFlips")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, seed := range seeds {
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\nuint32(%d)\n", strconv.Quote(string(seed.flips)), seed.cut)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// writeStreamSeeds writes the hostile seeds into FuzzStreamReader's
// corpus, whole, and the bombs a byte at a time too: a stream reader must
// stay linear however its chunks arrive.
func writeStreamSeeds(t *testing.T, seeds map[string][]byte) {
	dir := filepath.Join("testdata", "fuzz", "FuzzStreamReader")
	for name, data := range seeds {
		chunkings := []byte{0}
		if strings.HasPrefix(name, "hostile-bomb-") {
			chunkings = append(chunkings, 1)
		}
		for _, chunking := range chunkings {
			content := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\nbyte(%q)\n", strconv.Quote(string(data)), chunking)
			path := filepath.Join(dir, fmt.Sprintf("%s-%d", name, chunking))
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
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
