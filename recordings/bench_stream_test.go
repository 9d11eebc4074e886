package recordings

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings/recordingstest"
	"github.com/gputop-dev/gputop/timeline"
)

// BenchmarkStreamWire measures what one 8-GPU, 32-core host costs on the
// wire at 1 Hz, as gputop --hosts receives it, for ten minutes of samples:
// bytes per second (the header's few KB once, then the chunks), and the
// viewer's decoding per sample through a StreamReader.
//
//	go test -run XXX -bench StreamWire -benchtime 20x ./recordings/
func BenchmarkStreamWire(b *testing.B) {
	const n = 600
	g := recordingstest.NewSynth(7, t0, time.Second, benchGPUs, benchCores)
	ss := make([]timeline.Sample, n)
	for i := range ss {
		ss[i] = g.Next()
	}
	var buf memFile
	w, err := newWriter(&buf, "wire", Header{Version: "bench", Info: recordingstest.Info(benchGPUs, time.Second), Start: t0})
	if err != nil {
		b.Fatal(err)
	}
	head := w.out.n
	for i := range ss {
		if err := w.Write(&ss[i]); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.ResetTimer()
	for range b.N {
		sr, err := NewStreamReader(bytes.NewReader(data), "wire")
		if err != nil {
			b.Fatal(err)
		}
		got := 0
		for {
			ev, err := sr.Next()
			if err != nil {
				var se *StreamError
				if !errors.As(err, &se) && !errors.Is(err, io.EOF) {
					b.Fatal(err)
				}
				break
			}
			if ev.Item == StreamSample {
				got++
			}
		}
		if got != n {
			b.Fatalf("%d samples, want %d", got, n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/sample")
	b.ReportMetric(float64(int64(len(data))-head)/n, "B/s")
	b.ReportMetric(float64(head), "header-B")
}
