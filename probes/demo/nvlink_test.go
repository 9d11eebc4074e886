package demo

import (
	"math"
	"testing"

	"github.com/gputop-dev/gputop/timeline"
)

// The demo's H100s have eighteen links, all up in training, carrying the
// GPU's NVLink traffic in even shares.
func TestDemoNVLinkTrainingSpreadsOverEighteenLinks(t *testing.T) {
	r := recordDemo(t, "training", 1, 120)
	for g := range demoGPUs {
		links := r.gpu(timeline.GPUNVLinkLinks, g)
		if last := links[len(links)-1]; last != 1<<18-1 {
			t.Errorf("gpu%d: links %b, want 18", g, uint64(last))
		}
		if s := summarize(r.gpu(timeline.GPUNVLinkDown, g)); s.max != 0 {
			t.Errorf("gpu%d: links down %v", g, s.max)
		}
		total := summarize(r.gpu(timeline.GPUNVLinkTx, g)).mean + summarize(r.gpu(timeline.GPUNVLinkRx, g)).mean
		for l := range 18 {
			share := summarize(r.gpu(timeline.NVLinks[l].Data, g)).mean / total
			if math.Abs(share-1.0/18) > 0.01 {
				t.Errorf("gpu%d NVLink %d: %.3f of the GPU's traffic, want 1/18", g, l, share)
			}
		}
	}
}

// In the faults demo (seed 1) GPU7's NVLink 16 counts CRC errors from 0:40
// and goes down at 1:10; its peers carry its share; no other link errs.
func TestDemoNVLinkFault(t *testing.T) {
	r := recordDemo(t, "faults", 1, 100)
	const gpu, link = 7, 16
	down := r.gpu(timeline.GPUNVLinkDown, gpu)
	if down[60] != 0 || down[90] != 1<<link {
		t.Errorf("links down at 1:00 %v, at 1:30 %v; want none, then link %d", down[60], down[90], link)
	}
	crc := r.gpu(timeline.NVLinks[link].CRC, gpu)
	if v := crc[len(crc)-1]; v != 1200 {
		t.Errorf("CRC errors %v, want 1200 (40/s for 30 s)", v)
	}
	if rate := r.gpu(timeline.NVLinks[link].Data, gpu)[90]; rate != 0 {
		t.Errorf("the link down carries %v B/s", rate)
	}
	for g := range demoGPUs {
		if g == gpu {
			continue
		}
		if s := summarize(r.gpu(timeline.GPUNVLinkErrLinks, g)); s.max != 0 {
			t.Errorf("gpu%d: links with errors %v", g, s.max)
		}
	}
}
