package recordings

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings/format"
	"github.com/gputop-dev/gputop/recordings/recordingstest"
	"github.com/gputop-dev/gputop/timeline"
)

// The benchmarks measure the recording goals on synthetic 8-GPU sessions at
// 1 Hz: bytes per GPU-hour, the first frame of a 24-hour file, seeks,
// decoding, the writer's cost per sample, and memory while replaying.
//
//	go test -run XXX -bench . -benchtime 20x ./recordings/

const benchGPUs, benchCores = 8, 32

var (
	benchDir  string
	benchOnce sync.Map // file name -> *sync.Once
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		if err := os.RemoveAll(benchDir); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	os.Exit(code)
}

// benchFile writes (once per test binary) a recording of the given length
// of a synthetic 8-GPU, 32-core node at 1 Hz, and returns its path.
// benchSpan is d, or an hour at most under -short or in CI (GPUTOP_CI=1):
// CI runs every benchmark once so that none rots, and a day of samples
// to write first took most of its time.
func benchSpan(d time.Duration) time.Duration {
	if testing.Short() || os.Getenv("GPUTOP_CI") == "1" {
		return min(d, time.Hour)
	}
	return d
}

func benchFile(b *testing.B, d time.Duration, rawGPM bool) string {
	b.Helper()
	if benchDir == "" {
		dir, err := os.MkdirTemp("", "gputop-recordings-bench")
		if err != nil {
			b.Fatal(err)
		}
		benchDir = dir
	}
	d = benchSpan(d)
	path := filepath.Join(benchDir, fmt.Sprintf("%s-rawgpm-%v.gtr", d, rawGPM))
	once, _ := benchOnce.LoadOrStore(path, new(sync.Once))
	once.(*sync.Once).Do(func() {
		g := recordingstest.NewSynth(7, t0, time.Second, benchGPUs, benchCores)
		g.RawGPM = rawGPM
		w, err := Create(path, Header{Version: "bench", Info: recordingstest.Info(benchGPUs, time.Second), Start: t0}, false)
		if err != nil {
			b.Fatal(err)
		}
		for range int(d / time.Second) {
			s := g.Next()
			if err := w.Write(&s); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	})
	return path
}

func fileSize(b *testing.B, path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return fi.Size()
}

// BenchmarkSize reports bytes per GPU-hour: the file's size over hours
// times GPUs, host and per-core metrics included.
func BenchmarkSize(b *testing.B) {
	for _, c := range []struct {
		name   string
		d      time.Duration
		rawGPM bool
	}{
		{"1h", time.Hour, false},
		{"24h", 24 * time.Hour, false},
		{"1h-rawGPM", time.Hour, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			path := benchFile(b, c.d, c.rawGPM)
			for b.Loop() {
			}
			size, d := fileSize(b, path), benchSpan(c.d)
			b.ReportMetric(float64(size)/(d.Hours()*benchGPUs), "B/GPU-hour")
			b.ReportMetric(float64(size)/d.Seconds(), "B/s")
		})
	}
}

// BenchmarkWrite is the writer's cost per sample of an 8-GPU node, with
// a flush every sample as at 1 Hz.
func BenchmarkWrite(b *testing.B) {
	g := recordingstest.NewSynth(7, t0, time.Second, benchGPUs, benchCores)
	ss := make([]timeline.Sample, 3600)
	for i := range ss {
		ss[i] = g.Next()
	}
	w, err := newWriter(nopCloser{io.Discard}, "bench", Header{Info: recordingstest.Info(benchGPUs, time.Second)})
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		if i == len(ss) { // keep times going forward: shift the hour
			for j := range ss {
				ss[j].At = ss[j].At.Add(time.Hour)
			}
			i = 0
		}
		if err := w.Write(&ss[i]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.StopTimer()
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkFirstFrame opens a 24-hour recording and reads what the first
// screen needs: Span, then the first minute of samples. "unclosed" is the
// same file without its trailer (gputop was killed): Open scans the whole
// file for segment headers, and Span decodes the last segment.
func BenchmarkFirstFrame(b *testing.B) {
	path := benchFile(b, 24*time.Hour, false)
	unclosed := path + ".unclosed"
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(unclosed, data[:len(data)-format.TrailerFrame], 0o600); err != nil {
		b.Fatal(err)
	}
	for name, file := range map[string]string{"closed": path, "unclosed": unclosed} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				firstFrame(b, file)
			}
		})
	}
}

func firstFrame(b *testing.B, path string) {
	r, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	first, _ := r.Span()
	if err := r.SeekTime(first); err != nil {
		b.Fatal(err)
	}
	for range 60 {
		if _, err := r.Read(); err != nil {
			b.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSeek seeks a 24-hour recording to random times and reads the
// sample there.
func BenchmarkSeek(b *testing.B) {
	path := benchFile(b, 24*time.Hour, false)
	r, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	for b.Loop() {
		at := t0.Add(time.Duration(rng.Int64N(int64(benchSpan(24 * time.Hour)))))
		if err := r.SeekTime(at); err != nil {
			b.Fatal(err)
		}
		if _, err := r.Read(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecode reads one hour of samples: the decoder's throughput.
func BenchmarkDecode(b *testing.B) {
	path := benchFile(b, time.Hour, false)
	n := 0
	for b.Loop() {
		r, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		count, err := count(r)
		if err != nil {
			b.Fatal(err)
		}
		n += count
		if err := r.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/sample")
}

// BenchmarkDecodeDay reads the recording GPUTOP_BENCH_DAY names (skipped
// without one), handing each sample's metrics back as a report's load does:
// the decoder's cost alone, without BenchmarkDecode's allocation of every
// sample's metrics.
func BenchmarkDecodeDay(b *testing.B) {
	path := os.Getenv("GPUTOP_BENCH_DAY")
	if path == "" {
		b.Skip("GPUTOP_BENCH_DAY names no recording")
	}
	for b.Loop() {
		r, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		for {
			s, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			r.Recycle(s.Values)
			r.RecycleProbes(s.Probes)
		}
		if err := r.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReplayRSS replays a 24-hour recording in a fresh process and
// reports its peak resident memory (VmHWM): what `gputop replay` costs
// before the UI keeps anything.
func BenchmarkReplayRSS(b *testing.B) {
	path := benchFile(b, 24*time.Hour, false)
	var peak int64
	for b.Loop() {
		cmd := exec.Command(os.Args[0], "-test.run=^TestReplayRSSChild$")
		cmd.Env = append(os.Environ(), "GPUTOP_RSS_FILE="+path)
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		if _, err := fmt.Sscan(lastLine(out), &peak); err != nil {
			b.Fatalf("child said %q: %v", out, err)
		}
	}
	b.ReportMetric(float64(peak)/1024, "peak-RSS-MiB")
}

func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "vmhwm-kb ") {
			return strings.TrimPrefix(lines[i], "vmhwm-kb ")
		}
	}
	return ""
}

// TestReplayRSSChild is BenchmarkReplayRSS's child: it reads the whole file
// and prints its peak RSS in kB.
func TestReplayRSSChild(t *testing.T) {
	path := os.Getenv("GPUTOP_RSS_FILE")
	if path == "" {
		t.Skip("run by BenchmarkReplayRSS")
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := count(r); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc here")
	}
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == "VmHWM:" {
			fmt.Println("vmhwm-kb", f[1])
			return
		}
	}
	t.Fatal(errors.New("no VmHWM in /proc/self/status"))
}

// count reads r to its end, keeping nothing, and counts the samples.
func count(r *Reader) (int, error) {
	n := 0
	for {
		_, err := r.Read()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
