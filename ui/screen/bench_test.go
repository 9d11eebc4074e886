package screen

import (
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// BenchmarkRender draws a 200x50 screen of sliding sparklines, one column
// further each frame: the live screen's steady state. It reports the bytes
// each frame sends.
func BenchmarkRender(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 5))
	values := make([]int, 4096)
	for i := range values {
		values[i] = rng.IntN(8)
	}
	frames := make([]string, 64)
	for f := range frames {
		frames[f] = strings.Repeat(sparkRow(values, f, 150)+"\n", 50)
	}
	n := &countWriter{}
	r := NewRenderer(n)
	r.Resize(200, 50)
	r.Render(frames[0])
	n.n = 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.Render(frames[1+i%(len(frames)-1)])
	}
	b.ReportMetric(float64(n.n)/float64(b.N), "bytes/frame")
}

type countWriter struct{ n int }

func (w *countWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)
