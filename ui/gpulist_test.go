package ui

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
)

// clusterLog is what an imported nvidia-smi log of a big job holds: n GPUs
// at 15 s with utilisation, memory and power only (no limit, no
// temperature, no host), GPU37 idle throughout and every GPU stalled for a
// minute every ten, as the big-machines issue describes.
func clusterLog(n int, span time.Duration) (timeline.SourceInfo, []timeline.Sample) {
	info := timeline.SourceInfo{Kind: timeline.Imported, Origin: "/logs/job.csv", Interval: 15 * time.Second}
	for g := 0; g < n; g++ {
		info.GPUs = append(info.GPUs, timeline.GPUInfo{Index: g, Name: "NVIDIA H100 80GB HBM3", MemTotal: 80 * (1 << 30), PowerLimit: math.NaN()})
	}
	var out []timeline.Sample
	for at := time.Duration(0); at < span; at += info.Interval {
		s := timeline.Sample{At: fixtureStart.Add(at)}
		var ms []timeline.Metric
		stall := at%(10*time.Minute) < time.Minute
		for g := 0; g < n; g++ {
			dev := timeline.GPUDevice(g)
			util, power := 90+float64((g+int(at/info.Interval))%10), 600.0
			if g == 37 || stall {
				util, power = 0, 80
			}
			ms = append(ms,
				timeline.Metric{Key: timeline.Key{Name: timeline.GPUUtil, Device: dev}, Kind: timeline.Gauge, Value: util},
				timeline.Metric{Key: timeline.Key{Name: timeline.GPUMemUsed, Device: dev}, Kind: timeline.Gauge, Value: 60 * (1 << 30)},
				timeline.Metric{Key: timeline.Key{Name: timeline.GPUMemTotal, Device: dev}, Kind: timeline.Gauge, Value: 80 * (1 << 30)},
				timeline.Metric{Key: timeline.Key{Name: timeline.GPUPower, Device: dev}, Kind: timeline.Gauge, Value: power})
		}
		s.SetMetrics(ms)
		out = append(out, s)
	}
	return info, out
}

func newClusterModel(t testing.TB, n, w, h int) *Model {
	t.Helper()
	info, samples := clusterLog(n, 2*time.Hour)
	m := New(Options{Source: &sliceSource{info: info}, Renderer: testRenderer(), Store: timeline.NewStore(timeline.StoreOptions{})})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(samplesMsg{samples: samples})
	m.Update(sourceDoneMsg{})
	// An hour in: GPUs busy, GPU37 idle, the stalls behind.
	press(m, "t")
	for _, r := range "+65m" {
		press(m, string(r))
	}
	m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	return m
}

// Any number of GPUs fits any terminal from 80x24 up: the list scrolls
// under a summary of them all, and the rest of the screen stays.
func TestManyGPUsFitEveryTerminal(t *testing.T) {
	for _, n := range []int{64, 512} {
		for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 50}} {
			name := fmt.Sprintf("gpus%d_%dx%d", n, size[0], size[1])
			t.Run(name, func(t *testing.T) {
				m := newClusterModel(t, n, size[0], size[1])
				got := screen(m)
				checkScreenFits(t, got, size[0], size[1])
				for _, want := range []string{
					fmt.Sprintf(" GPU0-%d of %d  util lo 0%% mean", m.lay.GPUsShown-1, n),
					"1 idle", "phase", "no host readings: the imported log has GPUs only", "q quit",
				} {
					if !strings.Contains(got, want) {
						t.Errorf("%s: no %q on screen:\n%s", name, want, got)
					}
				}
				if strings.Contains(got, "/N/A") || strings.Contains(got, "iow N/A") {
					t.Errorf("%s: absent figures drawn as N/A:\n%s", name, got)
				}
				if n == 64 {
					checkGolden(t, name, got)
				}
			})
		}
	}
}

// The selection moves through the list as in htop: the list follows it,
// pgdown and pgup move a screenful, end and home to the ends.
func TestGPUListScrollsWithTheSelection(t *testing.T) {
	m := newClusterModel(t, 64, 80, 24)
	shown := m.lay.GPUsShown
	if shown < 2 || shown >= 64 {
		t.Fatalf("an 80x24 screen shows %d of 64 GPUs", shown)
	}
	selected := func() string {
		for _, l := range strings.Split(screen(m), "\n") {
			if strings.HasPrefix(l, "▸GPU") {
				return strings.Fields(l)[0]
			}
		}
		return ""
	}
	steps := []struct {
		keys    []string
		sel     string
		summary string
	}{
		{nil, "▸GPU0", fmt.Sprintf("GPU0-%d of 64", shown-1)},
		{repeat("down", shown), fmt.Sprintf("▸GPU%d", shown), fmt.Sprintf("GPU1-%d of 64", shown)},
		{[]string{"pgdown"}, fmt.Sprintf("▸GPU%d", 2*shown), fmt.Sprintf("GPU%d-%d of 64", shown+1, 2*shown)},
		{[]string{"end"}, "▸GPU63", fmt.Sprintf("GPU%d-63 of 64", 64-shown)},
		{[]string{"pgup"}, fmt.Sprintf("▸GPU%d", 63-shown), fmt.Sprintf("GPU%d-%d of 64", 63-shown, 62)},
		{[]string{"home"}, "▸GPU0", fmt.Sprintf("GPU0-%d of 64", shown-1)},
	}
	for _, s := range steps {
		press(m, s.keys...)
		got := screen(m)
		if sel := selected(); sel != s.sel {
			t.Fatalf("after %v the selection is %q, want %q:\n%s", s.keys, sel, s.sel, got)
		}
		if !strings.Contains(got, " "+s.summary+" ") {
			t.Fatalf("after %v the summary should say %q:\n%s", s.keys, s.summary, got)
		}
		// The detail graph follows the selection.
		if !strings.Contains(got, strings.TrimPrefix(s.sel, "▸")+" util") {
			t.Fatalf("after %v the detail graph is not of %s:\n%s", s.keys, s.sel, got)
		}
	}
	// A taller terminal shows more, and never scrolls past the list's end.
	press(m, "end")
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
	if got := screen(m); !strings.Contains(got, fmt.Sprintf("GPU%d-63 of 64", 64-m.lay.GPUsShown)) || selected() != "▸GPU63" {
		t.Fatalf("after a resize to 200x50:\n%s", got)
	}
}

// A few GPUs need no summary and never scroll: the screen is what it was.
func TestFewGPUsDoNotScroll(t *testing.T) {
	m := newTestModel(t, timeline.Live, fixtureSamples(30), 80, 24, Options{})
	if m.lay.Summary != 0 || m.lay.GPUsShown != 8 {
		t.Fatalf("8 GPUs at 80x24: summary %d, %d shown", m.lay.Summary, m.lay.GPUsShown)
	}
	press(m, "end")
	if !strings.Contains(screen(m), "▸GPU7") {
		t.Fatalf("end selects the last GPU:\n%s", screen(m))
	}
}

func repeat(k string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = k
	}
	return out
}
