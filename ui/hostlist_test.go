package ui

import (
	"fmt"
	"math"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/gpulist"
)

// newHostsModel is a model of fx's session after n seconds, sized w×h.
func newHostsModel(t testing.TB, fx hostsFixture, kind timeline.SourceKind, n, w, h int, opts Options) *Model {
	t.Helper()
	opts.Source = &sliceSource{info: fx.info(kind)}
	opts.Renderer = testRenderer()
	m := New(opts)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(samplesMsg{samples: fx.samples(n)})
	return m
}

func TestGoldenHostScreens(t *testing.T) {
	for _, c := range []struct {
		name string
		fx   hostsFixture
	}{{"hosts2", twoHosts}, {"hosts64", manyHosts}} {
		for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 50}} {
			for _, ascii := range []bool{false, true} {
				name := fmt.Sprintf("%s_%dx%d", c.name, size[0], size[1])
				if ascii {
					name += "_ascii"
				}
				t.Run(name, func(t *testing.T) {
					m := newHostsModel(t, c.fx, timeline.Live, 120, size[0], size[1], Options{ASCII: ascii})
					got := screen(m)
					checkScreenFits(t, got, size[0], size[1])
					checkGolden(t, name, got)
					if m.list.Mode != gpulist.HostLines {
						return
					}
					// The host whose problem is worth a look, opened.
					press(m, repeat("down", c.fx.unreachable-1)...)
					press(m, "enter")
					got = screen(m)
					checkScreenFits(t, got, size[0], size[1])
					checkGolden(t, name+"_open", got)
				})
			}
		}
	}
}

// rowsWith are the screen's rows that hold s.
func rowsWith(screen, s string) []string {
	var out []string
	for _, r := range strings.Split(screen, "\n") {
		if strings.Contains(r, s) {
			out = append(out, r)
		}
	}
	return out
}

// At 80x24 a session of several hosts is one line per host under a
// summary of them all, and the header counts hosts.
func TestHostListAt80x24(t *testing.T) {
	m := newHostsModel(t, twoHosts, timeline.Live, 120, 80, 24, Options{})
	s := screen(m)
	for _, want := range []string{" gputop · 2 hosts · 16x H100 80GB HBM3", " 2 hosts, 16 GPUs  util lo 0% mean", "▸node1 ", "7/8 busy"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q on screen:\n%s", want, s)
		}
	}
	if strings.Contains(s, "GPU3 ") && !strings.Contains(s, "node1 GPU0") {
		t.Errorf("GPU rows at 80x24 before a host is opened:\n%s", s)
	}
	// node2 stopped answering at 09:01:40: why, since when, cut to fit.
	// The host's own line, not the hints that name its GPUs.
	var rows []string
	for _, r := range rowsWith(s, " node2 ") {
		if strings.HasPrefix(r, " node2 ") {
			rows = append(rows, r)
		}
	}
	if len(rows) != 1 {
		t.Fatalf("node2 should be one line:\n%s", s)
	}
	for _, want := range []string{"unreachable: ssh: connect to host node2", "…", "since 09:01:40"} {
		if !strings.Contains(rows[0], want) {
			t.Errorf("node2's line lacks %q: %q", want, rows[0])
		}
	}
	// The detail graph is of the selected host's first GPU; the host row
	// is the selected host's.
	if !strings.Contains(s, " node1 GPU0 util") || len(rowsWith(s, " node1 ")) < 2 {
		t.Errorf("the detail graph and host row should be node1's:\n%s", s)
	}
}

// Hosts with short names (n1, n2) still leave the rows under them room
// for their labels: "phase" and the host panel's "cpus", not "pha", "cp".
func TestShortHostNamesKeepTheRowLabels(t *testing.T) {
	fx := twoHosts
	fx.prefix = "n"
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		s := screen(newHostsModel(t, fx, timeline.Live, 120, size[0], size[1], Options{}))
		if !strings.Contains(s, " n1 ") && !strings.Contains(s, "▸n1 ") {
			t.Fatalf("%dx%d: no host n1 on screen:\n%s", size[0], size[1], s)
		}
		for _, want := range []string{"phase ", " cpus "} {
			if len(rowsWith(s, want)) == 0 {
				t.Errorf("%dx%d: no %q label:\n%s", size[0], size[1], want, s)
			}
		}
	}
}

// enter opens the selected host's GPUs; up and down move among them and
// the detail graph follows; esc or backspace goes back to the hosts, with
// the same host selected.
func TestHostEnterAndEsc(t *testing.T) {
	m := newHostsModel(t, manyHosts, timeline.Live, 120, 80, 24, Options{})
	press(m, "down", "down", "down")
	if s := screen(m); len(rowsWith(s, "▸node4 ")) != 1 || !strings.Contains(s, "node4 GPU0 util") {
		t.Fatalf("down three times selects node4:\n%s", s)
	}
	if !strings.Contains(footerOf(m), "enter open") {
		t.Errorf("the footer offers enter: %q", footerOf(m))
	}
	press(m, "enter")
	s := screen(m)
	if m.list.Mode != gpulist.OneHost || !strings.Contains(s, "▸GPU0") || !strings.Contains(s, " GPU7 ") || !strings.HasPrefix(strings.Split(s, "\n")[1], " node4 ") {
		t.Fatalf("enter opens node4's 8 GPUs under its line:\n%s", s)
	}
	if !strings.Contains(footerOf(m), "esc hosts") {
		t.Errorf("the footer offers the way back: %q", footerOf(m))
	}
	press(m, "down", "down")
	if s := screen(m); !strings.Contains(s, "▸GPU2") || !strings.Contains(s, " node4 GPU2 util") {
		t.Fatalf("down moves among node4's GPUs, and the detail follows:\n%s", s)
	}
	press(m, "end")
	if s := screen(m); !strings.Contains(s, "▸GPU7") {
		t.Fatalf("end is node4's last GPU, not the session's:\n%s", s)
	}
	// A hint open: esc closes it first, then goes back.
	if len(m.an.shown) > 0 {
		press(m, "h")
		press(m, "esc")
		if m.list.Mode != gpulist.OneHost || m.hint.sel != 0 {
			t.Fatalf("esc closes the open hint before the host")
		}
	}
	press(m, "esc")
	if s := screen(m); m.list.Mode != gpulist.HostLines || len(rowsWith(s, "▸node4 ")) != 1 {
		t.Fatalf("esc goes back to the list with node4 selected:\n%s", s)
	}
	press(m, "enter", "backspace")
	if m.list.Mode != gpulist.HostLines {
		t.Fatalf("backspace goes back to the list too")
	}
	// The list scrolls with the selection, as the GPU list does.
	press(m, "end")
	if s := screen(m); len(rowsWith(s, "▸node64 ")) != 1 || !strings.Contains(s, " of 64, 512 GPUs") {
		t.Fatalf("end selects the last host, in view:\n%s", s)
	}
}

// Where every GPU fits under its host's line, the screen shows them all;
// the selection runs through the GPUs of every host.
func TestHostTreeWhenEverythingFits(t *testing.T) {
	m := newHostsModel(t, twoHosts, timeline.Live, 120, 200, 50, Options{})
	if m.list.Mode != gpulist.Tree {
		t.Fatalf("2 hosts of 8 GPUs at 200x50: mode %d, want the tree", m.list.Mode)
	}
	s := screen(m)
	if !strings.Contains(s, " 2 hosts, 16 GPUs") || len(rowsWith(s, " node2 ")) < 1 || len(rowsWith(s, "GPU7 ")) != 2 {
		t.Fatalf("both hosts with their GPUs:\n%s", s)
	}
	press(m, repeat("down", 8)...)
	if s := screen(m); !strings.Contains(s, " node2 GPU0 util") {
		t.Fatalf("down past node1's last GPU is node2's first:\n%s", s)
	}
	if m.keys.OpenHost.Enabled() {
		t.Errorf("nothing to open where every GPU shows")
	}
	// The same session at 80x24 is the list again.
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if m.list.Mode != gpulist.HostLines || m.hostName() != "node2" {
		t.Fatalf("at 80x24: mode %d, host %q", m.list.Mode, m.hostName())
	}
}

// A host without data says since when: the last moment its GPUs had a
// reading, whether its connection says why (unreachable) or not (a hole in
// an imported series).
func TestHostGapSaysSinceWhen(t *testing.T) {
	m := newHostsModel(t, manyHosts, timeline.Live, 120, 120, 40, Options{})
	s := screen(m)
	if rows := rowsWith(s, " node5 "); len(rows) != 1 || !strings.Contains(rows[0], "no data since 09:01:40") {
		t.Errorf("node5 has no data from 09:01:40: %q\n%s", rows, s)
	}
	if rows := rowsWith(s, " node3 "); len(rows) != 1 || !strings.Contains(rows[0], "since 09:01:30") || !strings.Contains(rows[0], "unreachable") {
		t.Errorf("node3 is unreachable since 09:01:30: %q", rows)
	}
	if !strings.Contains(s, "2 without data") {
		t.Errorf("the summary counts the hosts without data:\n%s", s)
	}
	// Before the gap, node5 is a host like any other.
	press(m, "t")
	for _, r := range "+80s" {
		press(m, string(r))
	}
	m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if rows := rowsWith(screen(m), " node5 "); len(rows) != 1 || !strings.Contains(rows[0], "8/8 busy") {
		t.Errorf("at 09:01:20 node5 was busy: %q", rows)
	}
}

// Replaying a recording of several hosts draws what the live view drew:
// the hosts, their lines, gaps and problems, the opened host.
func TestHostsReplayLooksLikeLive(t *testing.T) {
	fx := twoHosts
	replay := replayModel(t, writeRecording(t, "hosts.gtr", fx.info(timeline.Live), fx.samples(120)), nil)
	live := newHostsModel(t, fx, timeline.Live, 120, 120, 40, Options{})
	// The replay opens on the whole file, at its end.
	press(live, " ")
	zoomOutAll(live)
	for _, step := range [][]string{nil, {"down"}, {"esc"}} {
		press(live, step...)
		press(replay, step...)
		for _, size := range [][2]int{{120, 40}, {80, 24}, {200, 50}} {
			live.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			replay.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			if size == [2]int{80, 24} && step == nil {
				press(live, "enter")
				press(replay, "enter")
			}
			l, rp := strings.Split(screen(live), "\n"), strings.Split(screen(replay), "\n")
			if !strings.Contains(rp[0], "2 hosts") {
				t.Fatalf("the replay's header: %q", rp[0])
			}
			// Everything but the header (LIVE/REPLAY), the transport and
			// the footer.
			for i := 1; i < len(l)-2; i++ {
				if l[i] != rp[i] {
					t.Errorf("%v %dx%d: row %d differs:\nlive   %q\nreplay %q", step, size[0], size[1], i, l[i], rp[i])
				}
			}
		}
	}
}

// BenchmarkViewHosts draws the live screen of 64 hosts of 8 GPUs with ten
// minutes of history, every panel again as after a new sample; beside it
// the same 512 GPUs as one host's scrolling list, the screen it replaces.
func BenchmarkViewHosts(b *testing.B) {
	fx := manyHosts
	fx.unreachableAt, fx.gapFrom = 500, 550
	samples := fx.samples(600)
	for _, c := range []struct {
		name string
		info timeline.SourceInfo
	}{{"64x8hosts", fx.info(timeline.Live)}, {"512gpus1host", oneHostOf(fx.info(timeline.Live))}} {
		for _, size := range [][2]int{{80, 24}, {200, 50}} {
			b.Run(fmt.Sprintf("%s/%dx%d", c.name, size[0], size[1]), func(b *testing.B) {
				m := New(Options{Source: &sliceSource{info: c.info}, Renderer: testRenderer()})
				m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				m.Update(samplesMsg{samples: samples})
				b.ReportAllocs()
				for b.Loop() {
					m.render()
				}
			})
		}
	}
}

// oneHostOf is info as if every GPU were one host's.
func oneHostOf(info timeline.SourceInfo) timeline.SourceInfo {
	info.Hosts = nil
	info.Host = "node1"
	gpus := make([]timeline.GPUInfo, len(info.GPUs))
	for i, g := range info.GPUs {
		g.Host, g.HostIndex = "", 0
		gpus[i] = g
	}
	info.GPUs = gpus
	return info
}

// Every size from the smallest up fits the screen, in every arrangement,
// for a few hosts and many.
func TestHostScreensFitEverySize(t *testing.T) {
	for _, fx := range []hostsFixture{twoHosts, manyHosts, {hosts: 3, gpus: 1}} {
		m := newHostsModel(t, fx, timeline.Live, 120, 80, 24, Options{})
		for _, size := range [][2]int{{60, 12}, {60, 13}, {70, 20}, {80, 24}, {100, 30}, {120, 40}, {160, 48}, {200, 50}, {200, 60}} {
			for _, keys := range [][]string{nil, {"enter"}, {"end"}, {"esc", "home"}} {
				m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				press(m, keys...)
				checkScreenFits(t, screen(m), size[0], size[1])
			}
		}
	}
}

// In a session of several hosts the process table is the selected host's,
// its GPUs numbered as that host numbers them: a PID means nothing on
// another machine.
func TestProcessTableIsTheSelectedHosts(t *testing.T) {
	fx := hostsFixture{hosts: 2, gpus: 8}
	opts := Options{Source: &sliceSource{info: fx.info(timeline.Live)}, Renderer: testRenderer()}
	m := New(opts)
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
	samples := fx.samples(30)
	nan := math.NaN()
	for i := range samples {
		samples[i].Processes = []timeline.Process{
			{GPU: 2, PID: 1111, User: "ana", Command: "python a.py", GPUMem: 1 << 30, Util: nan, CPU: nan, RSS: nan},
			{GPU: 11, PID: 2222, User: "bo", Command: "python b.py", GPUMem: 1 << 30, Util: nan, CPU: nan, RSS: nan},
		}
	}
	m.Update(samplesMsg{samples: samples})
	s := screen(m)
	if !strings.Contains(s, "PROCESSES on node1") || !strings.Contains(s, "python a.py") || strings.Contains(s, "python b.py") {
		t.Fatalf("node1's table should hold only node1's process:\n%s", s)
	}
	if rows := rowsWith(s, "python a.py"); len(rows) != 1 || !strings.HasPrefix(strings.TrimSpace(rows[0]), "2 ") {
		t.Errorf("node1's process row %q", rows)
	}
	press(m, "end") // the last host
	s = screen(m)
	if !strings.Contains(s, "PROCESSES on node2") || strings.Contains(s, "python a.py") {
		t.Fatalf("node2's table should hold only node2's process:\n%s", s)
	}
	// Session-wide GPU11 is node2's GPU3.
	if rows := rowsWith(s, "python b.py"); len(rows) != 1 || !strings.HasPrefix(strings.TrimSpace(rows[0]), "3 ") {
		t.Errorf("node2's process row %q", rows)
	}
}
