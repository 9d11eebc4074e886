package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
)

// A host of several that answers after the first sample (gputop --hosts
// numbers its GPUs after the others') is drawn once it does.
func TestALateHostsGPUsAreDrawn(t *testing.T) {
	info := fixtureInfo(timeline.Live)
	info.Hosts = []timeline.HostInfo{{Name: "node-a"}, {Name: "node-b"}}
	for i := range info.GPUs {
		info.GPUs[i].Host, info.GPUs[i].HostIndex = "node-a", i
	}
	src := &sliceSource{info: info}
	m := New(Options{Source: src})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 60})
	samples := fixtureSamples(20)
	m.Update(samplesMsg{samples: samples[:10]})
	if strings.Contains(screen(m), "1/1 busy") {
		t.Fatal("node-b's GPU drawn before it answered")
	}
	late := info.GPUs[0]
	late.Index, late.Host, late.HostIndex = 8, "node-b", 0
	src.info.GPUs = append(append([]timeline.GPUInfo(nil), info.GPUs...), late)
	rest := samples[10:]
	for i := range rest {
		rest[i].SetMetrics(append(rest[i].Metrics(), timeline.Metric{Key: timeline.Key{Name: timeline.GPUUtil, Device: "gpu8"}, Value: 42}))
	}
	m.Update(samplesMsg{samples: rest})
	if rows := rowsWith(screen(m), " node-b "); len(rows) == 0 || !strings.Contains(rows[0], "1/1 busy util  42%") {
		t.Errorf("the late host's GPU is not drawn:\n%s", screen(m))
	}
}
