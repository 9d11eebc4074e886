package importer

import (
	"bytes"
	"io"
	"testing"
)

// BenchmarkImportLlama8b imports the largest shared telemetry log: 2.7 MB,
// 54432 rows of 8 GPUs without an index column, so burst grouping runs too.
func BenchmarkImportLlama8b(b *testing.B) {
	data, err := io.ReadAll(openTelemetry(b, "llama8b_8xh100_ckpt100_querygpu_100ms_noindex.csv"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := Import(bytes.NewReader(data), Options{})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Samples) != 6804 {
			b.Fatalf("%d samples, want 6804", len(res.Samples))
		}
	}
}
