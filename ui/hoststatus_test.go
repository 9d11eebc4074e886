package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
)

// With --hosts and no host answering (no gputop there, ssh failing, a
// host still connecting), every host has its line from the first frame,
// saying what it waits for: before the first sample every host is
// connecting; then each says its connection's reason.
func TestHostsSayWhyFromTheFirstSecond(t *testing.T) {
	info := timeline.SourceInfo{Kind: timeline.Live, Interval: time.Second, Host: "node1, node2, node3"}
	for _, h := range []string{"node1", "node2", "node3"} {
		info.Hosts = append(info.Hosts, timeline.HostInfo{Name: h})
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		m := New(Options{Source: &sliceSource{info: info}, Renderer: testRenderer()})
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		s := screen(m)
		checkScreenFits(t, s, size[0], size[1])
		for _, h := range []string{"node1", "node2", "node3"} {
			if len(rowsWith(s, h+"  connecting")) != 1 {
				t.Errorf("%dx%d: before the first sample %s should be connecting:\n%s", size[0], size[1], h, s)
			}
		}
		var samples []timeline.Sample
		for i := range 3 {
			samples = append(samples, timeline.Sample{At: fixtureStart.Add(time.Duration(i) * time.Second), Probes: []timeline.ProbeStatus{
				{Probe: timeline.RemoteProbe, Device: "node1", State: timeline.ProbeFailed, Err: "gputop is not installed on node1"},
				{Probe: timeline.RemoteProbe, Device: "node2", State: timeline.ProbeFailed, Err: "cannot connect: ssh: connect to host node2 port 22: Connection refused"},
				{Probe: timeline.RemoteProbe, Device: "node3", State: timeline.ProbeLate, Err: "connecting"},
			}})
		}
		m.Update(samplesMsg{samples: samples})
		s = screen(m)
		checkScreenFits(t, s, size[0], size[1])
		for _, want := range []string{"node1  gputop is not installed on node1", "node2  cannot connect: ssh:", "node3  connecting"} {
			if len(rowsWith(s, want)) != 1 {
				t.Errorf("%dx%d: no row says %q:\n%s", size[0], size[1], want, s)
			}
		}
		if strings.Contains(s, "no host readings yet") {
			t.Errorf("%dx%d: the host panel should name the host and its reason:\n%s", size[0], size[1], s)
		}
		press(m, "down")
		if m.list.Host != 1 {
			t.Errorf("%dx%d: down moves to the next host before any GPU is known (host %d)", size[0], size[1], m.list.Host)
		}
	}
}

// The first sample waits for every host to answer or fail (15 s at most):
// meanwhile a host that failed at once says why, asked of the source's
// connections, while the one still connecting says so.
func TestAFailedHostSaysWhyBeforeTheFirstSample(t *testing.T) {
	info := timeline.SourceInfo{Kind: timeline.Live, Interval: time.Second, Host: "node1, node2"}
	for _, h := range []string{"node1", "node2"} {
		info.Hosts = append(info.Hosts, timeline.HostInfo{Name: h})
	}
	connections := func() []timeline.ProbeStatus {
		return []timeline.ProbeStatus{
			{Probe: timeline.RemoteProbe, Device: "node1", State: timeline.ProbeFailed, Err: "gputop is not installed on node1; retrying in 1s"},
			{Probe: timeline.RemoteProbe, Device: "node2", State: timeline.ProbeLate, Err: "connecting"},
		}
	}
	m := New(Options{Source: &sliceSource{info: info}, Renderer: testRenderer(), HostStatus: connections})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	if m.watchHosts() == nil {
		t.Fatal("before the first sample the screen does not ask how the hosts' connections stand")
	}
	m.Update(hostsWaitMsg{})
	s := screen(m)
	for _, want := range []string{"node1  gputop is not installed on node1", "node2  connecting"} {
		if len(rowsWith(s, want)) != 1 {
			t.Errorf("no row says %q:\n%s", want, s)
		}
	}
	m.Update(samplesMsg{samples: []timeline.Sample{{At: fixtureStart}}})
	if m.watchHosts() != nil {
		t.Error("after the first sample the screen still asks the connections: the samples say them")
	}
}
