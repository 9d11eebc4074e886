package export

import (
	"io"
	"testing"

	"github.com/gputop-dev/gputop/recordings"
)

// BenchmarkExport exports an hour of a synthetic 8-GPU, 32-core node at
// 1 Hz (3600 samples: 8 GPU rows, a host row and a gputop row each) in
// each format, decoding included, and reports the time per sample and the
// output's size.
//
//	go test -run XXX -bench Export -benchtime 5x ./recordings/
func BenchmarkExport(b *testing.B) {
	path := benchFile(b)
	const samples = 3600
	for _, format := range Formats {
		b.Run(string(format), func(b *testing.B) {
			out := countingWriter{w: io.Discard}
			for b.Loop() {
				out.n = 0
				r, err := recordings.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				if err := Write(r, &out, format); err != nil {
					b.Fatal(err)
				}
				if err := r.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*samples), "ns/sample")
			b.ReportMetric(float64(out.n)/1e6, "MB/hour")
		})
	}
}
