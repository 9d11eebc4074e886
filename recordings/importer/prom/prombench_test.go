package prom

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings"
)

// BenchmarkImportPrometheus24h8x8 is the goal of issue 15: a day of 8
// hosts × 8 GPUs at a 15 s step (every series promMetrics reads: 20 per
// GPU, 7.4 million points) from query_range into a recording file, within
// 10 s and 300 MB. An httptest server on 127.0.0.1 stands for Prometheus
// (the real one is in e2e_prom_import_test.go) and runs in the same
// process, so the memory figures include its share.
//
// peak-heap-MB is the most heap in use seen (sampled every 10 ms) while
// importing; alloc-MB/op all the bytes allocated, and cpu-s/op all the CPU
// time taken, the server's included (it formats the 130 MB of JSON).
func BenchmarkImportPrometheus24h8x8(b *testing.B) {
	p := &fakeProm{hosts: 8, gpus: 8}
	srv := startFakeProm(b, p)
	dir := b.TempDir()
	// A day; two hours under -short or in CI (GPUTOP_CI=1), which run
	// each benchmark once so that none rots.
	span := 24 * time.Hour
	if testing.Short() || os.Getenv("GPUTOP_CI") == "1" {
		span = 2 * time.Hour
	}
	q := Query{URL: srv.URL, From: fakeStart, To: fakeStart.Add(span), Step: 15 * time.Second}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	cpuBefore := cpuTime()
	peak := watchHeap()
	b.ResetTimer()
	for i := range b.N {
		if i > 0 {
			runtime.GC() // each import from a clean heap, as the command runs
		}
		res, err := Fetch(context.Background(), q)
		if err != nil {
			b.Fatal(err)
		}
		w, err := recordings.Create(filepath.Join(dir, "job.gtr"), recordings.Header{Version: "bench", Info: res.Info, Start: res.First}, true)
		if err != nil {
			b.Fatal(err)
		}
		if err := res.Each(w.Write); err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		if i == 0 && (res.Samples != int(span/(15*time.Second))+1 || len(res.Info.GPUs) != 64 || len(res.Info.Hosts) != 8) {
			b.Fatalf("%d samples of %d GPUs on %d hosts", res.Samples, len(res.Info.GPUs), len(res.Info.Hosts))
		}
	}
	b.StopTimer()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	b.ReportMetric((cpuTime()-cpuBefore).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(peak())/1e6, "peak-heap-MB")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/1e6, "alloc-MB/op")
}

// cpuTime is the CPU time this process has used, user and system: on a
// shared machine it moves less than the wall clock does.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// watchHeap samples the heap in use until the returned function is
// called, which gives the most seen.
func watchHeap() func() uint64 {
	var mu sync.Mutex
	var most uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			mu.Lock()
			most = max(most, m.HeapInuse)
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(stop)
		<-done
		mu.Lock()
		defer mu.Unlock()
		return most
	}
}

// TestServeFakePrometheus serves the benchmark's cluster on the 127.0.0.1
// address in GPUTOP_FAKEPROM_LISTEN for GPUTOP_FAKEPROM_FOR (default 2m),
// so that the gputop binary's own time and memory can be measured
// (docs/performance.md):
//
//	GPUTOP_FAKEPROM_LISTEN=127.0.0.1:19999 go test -run TestServeFakePrometheus ./recordings/importer &
//	/usr/bin/time -v gputop import prometheus http://127.0.0.1:19999 \
//	    --from 2026-11-24T08:00:00Z --to 2026-11-25T08:00:00Z -o day.gtr
func TestServeFakePrometheus(t *testing.T) {
	addr := os.Getenv("GPUTOP_FAKEPROM_LISTEN")
	if addr == "" {
		t.Skip("set GPUTOP_FAKEPROM_LISTEN=127.0.0.1:PORT to serve the benchmark's cluster")
	}
	if host, _, err := net.SplitHostPort(addr); err != nil || !net.ParseIP(host).IsLoopback() {
		t.Fatalf("GPUTOP_FAKEPROM_LISTEN=%s: give a 127.0.0.1 address", addr)
	}
	serveFor := 2 * time.Minute
	if d, err := time.ParseDuration(os.Getenv("GPUTOP_FAKEPROM_FOR")); err == nil {
		serveFor = d
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: &fakeProm{hosts: 8, gpus: 8}}
	go srv.Serve(l)
	time.Sleep(serveFor)
	srv.Close()
}
