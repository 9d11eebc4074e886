package remote

import (
	"context"
	"encoding/gob"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

func openFake(n *fakeNet, hosts ...string) *Source {
	return Open(Options{Hosts: hosts, Interval: time.Second, Dial: n.dial, Open: openGob,
		MarkLine: func(text string) []byte { return []byte(text + "\n") }})
}

// status is host's "remote" status in s.
func status(s timeline.Sample, host string) timeline.ProbeStatus {
	for _, p := range s.Probes {
		if p.Probe == timeline.RemoteProbe && p.Device == host {
			return p
		}
	}
	return timeline.ProbeStatus{State: 99}
}

func devices(s timeline.Sample) []string {
	var out []string
	for _, m := range s.Metrics() {
		if !slices.Contains(out, m.Key.Device) {
			out = append(out, m.Key.Device)
		}
	}
	return out
}

func next(t *testing.T, src *Source) timeline.Sample {
	t.Helper()
	s, err := src.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestHostsMergeIntoOneSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := newFakeNet()
		n.on("a", streaming(2, 90, 0))
		n.on("b", streaming(1, 40, 0))
		src := openFake(n, "a", "b")
		defer src.Close()
		s := next(t, src)
		if got, want := devices(s), []string{"gpu0", "gpu1", "host@a", "gpu2", "host@b"}; !slices.Equal(got, want) {
			t.Errorf("devices %q, want %q", got, want)
		}
		for _, h := range []string{"a", "b"} {
			if st := status(s, h); st.State != timeline.ProbeOK || st.Err != "" {
				t.Errorf("%s: %+v", h, st)
			}
		}
		if !slices.ContainsFunc(s.Probes, func(p timeline.ProbeStatus) bool { return p.Probe == "nvml" && p.Device == "gpu2" }) {
			t.Errorf("b's own probe statuses are not renumbered: %+v", s.Probes)
		}
		info := src.Info()
		if !info.MultiHost() || len(info.Hosts) != 2 || info.Hosts[1].Name != "b" || info.Hosts[1].Driver != "550.54.15" {
			t.Errorf("hosts %+v", info.Hosts)
		}
		if len(info.GPUs) != 3 || info.GPUs[2].Host != "b" || info.GPUs[2].HostIndex != 0 || info.GPUs[2].Index != 2 ||
			info.GPUs[1].Host != "a" || info.GPUs[1].OnHost() != 1 || info.GPUs[2].Name != "H100" {
			t.Errorf("GPUs %+v", info.GPUs)
		}
		if !slices.Equal(info.GPUsOf("a"), []int{0, 1}) || info.Kind != timeline.Demo || info.Interval != time.Second {
			t.Errorf("info %+v", info)
		}
		// The viewer's tick paces the samples, a second apart.
		s2 := next(t, src)
		if d := s2.At.Sub(s.At); d != time.Second {
			t.Errorf("samples %v apart", d)
		}
	})
}

func TestAHostThatDropsIsAGapThenComesBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := newFakeNet()
		n.on("a", streaming(1, 90, 0))
		// b streams 3 s, drops, and is back at the next try.
		n.on("b", func(c *fakeConn) { streaming(1, 40, 3)(c); c.end(255, "Connection to b closed by remote host.") },
			streaming(1, 40, 0))
		src := openFake(n, "a", "b")
		defer src.Close()
		var states []string
		sawGap, back := false, false
		for range 10 {
			s := next(t, src)
			st := status(s, "b")
			// A lost host keeps its place with gaps: its series, no numbers.
			v, hasB := s.Value(timeline.Key{Name: "util", Device: "gpu1"})
			hasB = hasB && !math.IsNaN(v)
			if _, hasA := s.Value(timeline.Key{Name: "util", Device: "gpu0"}); !hasA {
				t.Errorf("at %v: a is missing while b drops", s.At)
			}
			states = append(states, st.State.String()+" "+st.Err)
			if st.State == timeline.ProbeFailed {
				if hasB {
					t.Errorf("a lost host has values: %v", s.Metrics())
				}
				if st.Err != "dropped: Connection to b closed by remote host.; retrying in 1s" {
					t.Errorf("reason %q", st.Err)
				}
				sawGap = true
			}
			if sawGap && st.State == timeline.ProbeOK && hasB {
				back = true
			}
		}
		if !sawGap || !back {
			t.Errorf("b's states %q: want a drop, then back", states)
		}
	})
}

func TestFaultsSayWhyInOneLineAndBackOff(t *testing.T) {
	tests := []struct {
		name   string
		script script
		want   string
	}{
		{"not installed (bash)", exiting(127, "bash: line 1: gputop: command not found\n"), "gputop is not installed on b"},
		{"not installed (dash)", exiting(127, "sh: 1: gputop: not found\n"), "gputop is not installed on b"},
		{"unreachable", exiting(255, "ssh: connect to host 10.0.0.9 port 22: Connection refused\r\n"),
			"cannot connect: ssh: connect to host 10.0.0.9 port 22: Connection refused"},
		{"no key", exiting(255, "root@b: Permission denied (publickey).\n"), "cannot connect: root@b: Permission denied (publickey)."},
		{"older gputop", exiting(2, "gputop: unknown command \"stream\" (see gputop --help)\n"), "b runs an older gputop (no stream); upgrade it there"},
		{"exits", exiting(1, "gputop stream: something\n"), "ended: gputop stream: something"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				n := newFakeNet()
				n.on("a", streaming(1, 90, 0))
				n.on("b", tt.script)
				src := openFake(n, "a", "b")
				defer src.Close()
				var errs []string
				for range 15 {
					st := status(next(t, src), "b")
					if st.State != timeline.ProbeFailed {
						t.Fatalf("b is %v", st.State)
					}
					if !slices.Contains(errs, st.Err) {
						errs = append(errs, st.Err)
					}
				}
				// Tries at 0, 1, 3, 7 and 15 s: four fit in 15 s.
				want := []string{tt.want + "; retrying in 1s", tt.want + "; retrying in 2s", tt.want + "; retrying in 4s", tt.want + "; retrying in 8s"}
				if !slices.Equal(errs, want) {
					t.Errorf("errors %q\nwant %q", errs, want)
				}
			})
		})
	}
}

func TestBackoffIsCapped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := newFakeNet()
		n.on("b", exiting(255, "ssh: Could not resolve hostname b: Name or service not known"))
		src := openFake(n, "b")
		defer src.Close()
		var last timeline.ProbeStatus
		for range 200 {
			last = status(next(t, src), "b")
		}
		if !strings.HasSuffix(last.Err, "; retrying in 30s") {
			t.Errorf("after 200 s: %q", last.Err)
		}
		// 1+2+4+8+16 = 31 s, then every 30 s: 5 + 5 more tries.
		if d := n.dialsOf("b"); d < 9 || d > 12 {
			t.Errorf("%d tries in 200 s", d)
		}
	})
}

func TestAHungHostIsKilledAndTriedAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := newFakeNet()
		n.on("a", streaming(1, 90, 0))
		n.on("b", hanging(1), streaming(1, 40, 0))
		src := openFake(n, "a", "b")
		defer src.Close()
		var errs []string
		for range 20 {
			st := status(next(t, src), "b")
			if st.Err != "" && !slices.Contains(errs, st.Err) {
				errs = append(errs, st.Err)
			}
		}
		if !slices.Equal(errs, []string{"no answer for 10s; retrying in 1s"}) {
			t.Errorf("errors %q", errs)
		}
		if n.dialsOf("b") != 2 {
			t.Errorf("%d dials", n.dialsOf("b"))
		}
		n.mu.Lock()
		first := n.conns[1]
		if first.host != "b" {
			first = n.conns[0]
		}
		n.mu.Unlock()
		select {
		case <-first.closed:
		default:
			t.Error("the hung connection was not closed")
		}
	})
}

func TestALateHostIsNumberedAfterTheOthers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := newFakeNet()
		n.on("a", exiting(255, "ssh: connect to host a port 22: No route to host"), streaming(2, 90, 0))
		n.on("b", streaming(2, 40, 0))
		src := openFake(n, "a", "b")
		defer src.Close()
		s := next(t, src)
		if got := devices(s); !slices.Equal(got, []string{"gpu0", "gpu1", "host@b"}) {
			t.Errorf("first sample's devices %q", got)
		}
		for range 3 {
			s = next(t, src)
		}
		if got := devices(s); !slices.Equal(got, []string{"gpu2", "gpu3", "host@a", "gpu0", "gpu1", "host@b"}) {
			t.Errorf("devices once a is back %q", got)
		}
		info := src.Info()
		if !slices.Equal(info.GPUsOf("a"), []int{2, 3}) || !slices.Equal(info.GPUsOf("b"), []int{0, 1}) || info.Hosts[0].Name != "a" {
			t.Errorf("info %+v", info)
		}
	})
}

func TestTheFirstSampleWaitsForEveryHostBoundedly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := newFakeNet()
		n.on("a", streaming(1, 90, 0))
		n.on("b", func(c *fakeConn) { <-c.closed }) // connects, says nothing
		src := openFake(n, "a", "b")
		defer src.Close()
		start := time.Now()
		s := next(t, src)
		if d := s.At.Sub(start); d != 10*time.Second+time.Second/2 {
			// b is taken for hung after 10 s, which settles it.
			t.Errorf("first sample after %v", d)
		}
	})
}

func TestMarkersReachEveryHostAndComeOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := newFakeNet()
		echo := func(c *fakeConn) {
			c.send(Event{Info: node(1)})
			for i := 0; ; i++ {
				s := reading(1, 50)
				c.mu.Lock()
				for _, line := range c.sent {
					s.Markers = append(s.Markers, timeline.Marker{Text: strings.TrimSpace(line), Origin: "key"})
				}
				c.sent = nil
				c.mu.Unlock()
				if i == 3 {
					s.Markers = append(s.Markers, timeline.Marker{Text: "epoch 2", Origin: "job"})
				}
				if !c.send(Event{Sample: s}) {
					return
				}
				select {
				case <-c.closed:
					return
				case <-time.After(time.Second):
				}
			}
		}
		n.on("a", echo)
		n.on("b", echo)
		src := openFake(n, "a", "b")
		defer src.Close()
		next(t, src)
		src.Mark("eval")
		var got []string
		for range 6 {
			for _, m := range next(t, src).Markers {
				got = append(got, m.Text+"/"+m.Origin)
			}
		}
		if !slices.Equal(got, []string{"eval/key", "epoch 2/job"}) {
			t.Errorf("markers %q", got)
		}
	})
}

func TestAFloodingHostStaysBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := newFakeNet()
		n.on("a", func(c *fakeConn) {
			c.send(Event{Info: node(1)})
			for i := 0; i < 10000; i++ {
				s := reading(1, float64(i%100))
				s.Markers = []timeline.Marker{{Text: "m", Origin: "job"}}
				if !c.send(Event{Sample: s}) {
					return
				}
			}
			<-c.closed
		})
		src := openFake(n, "a")
		defer src.Close()
		next(t, src)
		synctest.Wait()
		h := src.hosts[0]
		h.mu.Lock()
		q, m := len(h.queue), len(h.markers)
		h.mu.Unlock()
		if q > hostQueue || m > hostMarkers {
			t.Errorf("%d samples, %d markers held", q, m)
		}
		// The last sample sent is the one shown at the next tick.
		s := next(t, src)
		if v, _ := s.Value(timeline.Key{Name: "util", Device: "gpu0"}); v != 99 {
			t.Errorf("util %v, want the newest (99)", v)
		}
	})
}

func TestCloseEndsEveryConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := newFakeNet()
		n.on("a", streaming(1, 90, 0))
		n.on("b", hanging(1))
		src := openFake(n, "a", "b")
		next(t, src)
		src.Close()
		n.wg.Wait()
		for _, c := range n.conns {
			select {
			case <-c.closed:
			default:
				t.Errorf("%s's connection is open after Close", c.host)
			}
		}
	})
}

func TestHostsTitle(t *testing.T) {
	for _, tt := range []struct {
		hosts []string
		want  string
	}{
		{[]string{"node3"}, "node3"},
		{[]string{"alpha", "beta", "gamma", "delta"}, "alpha, beta, gamma, delta"},
		{[]string{"node1", "node2", "node3", "node4", "node5", "node6"}, "6 hosts, node1…node6"},
	} {
		if got := hostsTitle(tt.hosts); got != tt.want {
			t.Errorf("hostsTitle(%q) = %q, want %q", tt.hosts, got, tt.want)
		}
	}
}

// A host whose clock is an hour off, over a link whose delay wavers by up
// to nearly half an interval, still has a value at every tick.
func TestJitterAndSkewMakeNoGaps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := newFakeNet()
		n.on("a", streaming(1, 90, 0))
		n.on("b", func(c *fakeConn) {
			c.send(Event{Info: node(1)})
			start := time.Now()
			delays := []time.Duration{0, 450, 100, 490, 0, 300, 480, 10, 250}
			for i := 0; ; i++ {
				s := reading(1, 40)
				s.At = start.Add(time.Duration(i)*time.Second + time.Hour)
				select {
				case <-c.closed:
					return
				case <-time.After(time.Until(start.Add(time.Duration(i)*time.Second + delays[i%len(delays)]*time.Millisecond))):
				}
				if !c.send(Event{Sample: s}) {
					return
				}
			}
		})
		src := openFake(n, "a", "b")
		defer src.Close()
		for i := range 60 {
			s := next(t, src)
			if _, ok := s.Value(timeline.Key{Name: "util", Device: "gpu1"}); !ok {
				t.Errorf("tick %d: b has no value (%+v)", i, status(s, "b"))
			}
		}
	})
}

type versionError struct{}

func (versionError) Error() string {
	return "gputop v0.3.0 streams format 1.3; this gputop reads 1.4 to 1.x; upgrade gputop there"
}
func (versionError) Want() string { return "1.4 to 1.x" }

type notStream struct{}

func (notStream) Error() string { return "the stream: not a gputop recording (empty stream)" }

func TestWhyAConnectionEnded(t *testing.T) {
	ssh := &host{name: "node3", opts: &Options{HangAfter: 10 * time.Second}}
	kubectl := &host{name: "pod-1", opts: &Options{Transport: Transport{Command: []string{"kubectl", "exec", "-i"}}}}
	tests := []struct {
		h        *host
		err      error
		exit     error
		stderr   string
		hung     bool
		streamed bool
		want     string
	}{
		{ssh, io.EOF, &ExitError{Code: 127}, "bash: line 1: gputop: command not found\n", false, false, "gputop is not installed on node3"},
		{ssh, notStream{}, &ExitError{Code: 2}, "gputop: unknown command \"stream\" (see gputop --help)\n", false, false, "node3 runs an older gputop (no stream); upgrade it there"},
		{ssh, versionError{}, nil, "", false, false, versionError{}.Error()},
		{ssh, io.ErrUnexpectedEOF, &ExitError{Code: 255}, "ssh: Could not resolve hostname node3: Name or service not known\r\n", false, false, "cannot connect: ssh: Could not resolve hostname node3: Name or service not known"},
		{ssh, io.ErrUnexpectedEOF, &ExitError{Code: 255}, "", false, false, "cannot connect (ssh exit status 255)"},
		{ssh, io.ErrUnexpectedEOF, &ExitError{Code: 255}, "Connection to node3 closed by remote host.\n", false, true, "dropped: Connection to node3 closed by remote host."},
		{ssh, io.ErrUnexpectedEOF, &ExitError{Code: -1, Signal: "killed"}, "", false, true, "dropped (signal: killed)"},
		{ssh, notStream{}, &ExitError{Code: 1}, "node3 is down for maintenance\n", false, false, "ended: node3 is down for maintenance"},
		{ssh, notStream{}, nil, "", false, false, "the stream: not a gputop recording (empty stream)"},
		{ssh, io.EOF, nil, "", false, true, "dropped"},
		{ssh, io.ErrUnexpectedEOF, &ExitError{Code: -1, Signal: "terminated"}, "", true, true, "no answer for 10s"},
		{kubectl, io.ErrUnexpectedEOF, &ExitError{Code: 255}, "error: pods \"pod-1\" not found\n", false, false, "ended: error: pods \"pod-1\" not found"},
		{kubectl, io.EOF, &ExitError{Code: 126}, "OCI runtime exec failed: exec: \"gputop\": executable file not found in $PATH: unknown\n", false, false, "gputop is not installed on pod-1"},
	}
	for _, tt := range tests {
		if got := tt.h.why(tt.err, tt.exit, tt.stderr, tt.hung, tt.streamed); got != tt.want {
			t.Errorf("why(%v, %v, %q) = %q\nwant %q", tt.err, tt.exit, tt.stderr, got, tt.want)
		}
	}
}

// A sample is never shown with its host down: the status is the tick's.
func TestASampleAndItsHostsStatusAgree(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := newFakeNet()
		// Two samples at once, then the drop: the second is taken a tick
		// after the connection ended.
		n.on("a", func(c *fakeConn) {
			c.send(Event{Info: node(1)})
			c.send(Event{Sample: reading(1, 10)})
			c.send(Event{Sample: reading(1, 20)})
			c.end(255, "Connection to a closed by remote host.")
		}, streaming(1, 30, 0))
		src := openFake(n, "a")
		defer src.Close()
		for range 6 {
			s := next(t, src)
			_, has := s.Value(timeline.Key{Name: "util", Device: "gpu0"})
			if st := status(s, "a"); has != (st.State == timeline.ProbeOK) {
				t.Errorf("at %v: values %v, status %+v", s.At, has, st)
			}
		}
	})
}

// A drop whose retry fails before a tick could say so (the tick took a
// sample queued before the drop) is still said, before the retry's reason.
func TestADropIsSaidEvenWhenItsRetryFailsWithinATick(t *testing.T) {
	h := &host{name: "a", opts: &Options{}, settledOnce: func() {}}
	at := time.Now() // push times a sample's arrival by the wall clock
	h.mu.Lock()
	h.push(&timeline.Sample{At: at})
	h.up = true
	h.mu.Unlock()
	h.down("dropped", time.Second)
	s, _, _, st := h.take(at.Add(time.Hour), time.Second)
	if s == nil || st.State != timeline.ProbeOK {
		t.Fatalf("the queued sample: %v, status %+v", s, st)
	}
	h.down("ended: a is down", 2*time.Second)
	var said []string
	for range 3 {
		_, _, _, st := h.take(at.Add(time.Hour), time.Second)
		said = append(said, st.Err)
	}
	want := []string{"dropped; retrying in 1s", "ended: a is down; retrying in 2s", "ended: a is down; retrying in 2s"}
	if !slices.Equal(said, want) {
		t.Errorf("said %q, want %q", said, want)
	}
}

// stuckFeed stands for a host whose decoder is busy with what it read (a
// stream that inflates as it decodes): its Next ignores the connection
// closing until the test lets it go.
type stuckFeed struct {
	first   bool
	release chan struct{}
}

func (f *stuckFeed) Next() (Event, error) {
	if !f.first {
		f.first = true
		return Event{Info: node(1)}, nil
	}
	<-f.release
	return Event{}, io.EOF
}

func TestCloseDoesNotWaitOnABusyHost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := newFakeNet()
		n.on("good", streaming(1, 90, 0))
		n.on("stuck", streaming(1, 90, 0))
		release := make(chan struct{})
		open := func(r io.Reader) (Feed, error) {
			if r.(counter).h.name == "stuck" {
				return &stuckFeed{release: release}, nil
			}
			return openGob(r)
		}
		src := Open(Options{Hosts: []string{"good", "stuck"}, Interval: time.Second, Dial: n.dial, Open: open})
		next(t, src)
		start := time.Now()
		src.Close()
		if took := time.Since(start); took > closeWait {
			t.Errorf("Close took %v with a host busy decoding, want at most %v", took, closeWait)
		}
		for _, c := range n.conns {
			select {
			case <-c.closed:
			default:
				t.Errorf("%s's connection is open after Close", c.host)
			}
		}
		close(release)
		n.wg.Wait()
	})
}

// Before the first sample, which waits for every host to answer or fail,
// Connections says how each stands: one that failed says why, one that
// has not answered is connecting.
func TestConnectionsBeforeTheFirstSample(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := newFakeNet()
		n.on("a", func(c *fakeConn) { <-c.closed }) // connects, never answers
		n.on("b", exiting(127, "sh: 1: gputop: not found\n"))
		src := openFake(n, "a", "b")
		defer src.Close()
		time.Sleep(100 * time.Millisecond)
		synctest.Wait()
		got := src.Connections()
		want := []timeline.ProbeStatus{
			{Probe: timeline.RemoteProbe, Device: "a", State: timeline.ProbeLate, Err: "connecting"},
			{Probe: timeline.RemoteProbe, Device: "b", State: timeline.ProbeFailed, Err: "gputop is not installed on b; retrying in 1s"},
		}
		if !slices.Equal(got, want) {
			t.Errorf("connections %+v\nwant %+v", got, want)
		}
	})
}

// recyclingFeed decodes each sample into the metrics handed back last, as
// the stream decoder does (recordings.StreamReader.Recycle).
type recyclingFeed struct {
	gobFeed
	mu       sync.Mutex
	spare    []float64
	recycled int
}

func (f *recyclingFeed) Recycle(v []float64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.spare = v
	f.recycled++
}

func (f *recyclingFeed) Next() (Event, error) {
	ev, err := f.gobFeed.Next()
	f.mu.Lock()
	defer f.mu.Unlock()
	if ev.Sample != nil && len(f.spare) == ev.Sample.Len() {
		copy(f.spare, ev.Sample.Values)
		ev.Sample.Values, f.spare = f.spare, nil
	}
	return ev, err
}

// A host's sample, once merged, is decoded into again, and the merged
// sample is merged into again at the next tick: each tick's sample has its
// own values until then.
func TestMergedSamplesKeepTheirValuesWhileTheFeedRecycles(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := newFakeNet()
		n.on("a", func(c *fakeConn) {
			if !c.send(Event{Info: node(1)}) {
				return
			}
			for i := range 8 {
				if !c.send(Event{Sample: reading(1, float64(10+i))}) {
					return
				}
				select {
				case <-c.closed:
					return
				case <-time.After(time.Second):
				}
			}
		})
		var feed *recyclingFeed
		src := Open(Options{Hosts: []string{"a"}, Interval: time.Second, Dial: n.dial,
			Open: func(r io.Reader) (Feed, error) {
				feed = &recyclingFeed{gobFeed: gobFeed{gob.NewDecoder(r)}}
				return feed, nil
			}})
		defer src.Close()
		var utils []float64
		for range 6 {
			s := next(t, src)
			if v, ok := s.Value(timeline.Key{Name: "util", Device: "gpu0"}); ok {
				utils = append(utils, v)
			}
		}
		rising := len(utils) >= 4
		for i := 1; i < len(utils); i++ {
			rising = rising && utils[i] > utils[i-1]
		}
		if !rising {
			t.Errorf("merged samples' utilisation %v: want each its own, rising", utils)
		}
		feed.mu.Lock()
		defer feed.mu.Unlock()
		if feed.recycled == 0 {
			t.Errorf("no merged sample's metrics went back to the feed")
		}
	})
}

// A host's keys are renamed by position while it sends them again in the
// same strings, and looked up again where it sends others, even as many:
// a device of another name in the same place is renamed as its own.
func TestAHostsKeysAreRenamedAgainWhereTheyChange(t *testing.T) {
	s := newSource(Options{Hosts: []string{"a", "b"}, Interval: time.Second})
	for _, h := range s.hosts {
		h.info = node(2)
	}
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	sample := func(devices ...string) timeline.Sample {
		var smp timeline.Sample
		for _, d := range devices {
			smp.SetMetrics(append(smp.Metrics(), timeline.Metric{Key: timeline.Key{Name: "util", Device: d}, Value: 1}))
		}
		return smp
	}
	tick := func(a, b timeline.Sample) []timeline.Key {
		now = now.Add(time.Second)
		s.hosts[0].queue = append(s.hosts[0].queue[:0], a)
		s.hosts[1].queue = append(s.hosts[1].queue[:0], b)
		out := s.merge(now)
		return slices.Clone(out.Columns.Keys())
	}
	first, other := sample("gpu0", "host"), sample("gpu1", "host")
	want := []timeline.Key{{Name: "util", Device: "gpu0"}, {Name: "util", Device: "host@a"},
		{Name: "util", Device: "gpu3"}, {Name: "util", Device: "host@b"}}
	for i, tt := range []struct {
		a, b timeline.Sample
		want []timeline.Key
	}{
		{first, other, want},
		{first, other, want}, // the same strings: by position
		// Host a's first key is another GPU now, in the same place.
		{other, other, []timeline.Key{{Name: "util", Device: "gpu1"}, want[1], want[2], want[3]}},
		{first, other, want},
		// The same keys in strings of their own (a stream's new segment).
		{sample(strings.Clone("gpu0"), strings.Clone("host")), other, want},
	} {
		if got := tick(tt.a, tt.b); !slices.Equal(got, tt.want) {
			t.Errorf("tick %d: keys %v, want %v", i, got, tt.want)
		}
	}
}

// The merged sample keeps its columns while each host gives the columns it
// gave before, or nothing (a gap), or new columns of the same keys (a new
// connection's decoder): the Judge and the store downstream then know it
// by one pointer check. New keys from a host make new columns.
func TestMergedColumnsStayWhileEachHostsDo(t *testing.T) {
	s := newSource(Options{Hosts: []string{"a", "b"}, Interval: time.Second})
	for _, h := range s.hosts {
		h.info = node(2)
	}
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	tick := func(a, b *timeline.Sample) timeline.Sample {
		now = now.Add(time.Second)
		for i, smp := range []*timeline.Sample{a, b} {
			s.hosts[i].queue = s.hosts[i].queue[:0]
			if smp != nil {
				c := *smp
				c.At = now.Add(-time.Second)
				s.hosts[i].queue = append(s.hosts[i].queue, c)
			}
		}
		return s.merge(now)
	}
	a, b := reading(2, 50), reading(2, 60)
	first := tick(a, b)
	if first.Len() != 6 || first.Columns.Len() != 6 {
		t.Fatalf("first tick: %d values in %d columns, want 6", first.Len(), first.Columns.Len())
	}
	// The values are the Source's again at the next tick: read at once.
	gap := tick(nil, b)
	if !math.IsNaN(gap.Values[0]) || gap.Values[3] != 60 {
		t.Errorf("values %v, want a's gap and b's 60", gap.Values)
	}
	again := tick(reading(2, 51), b) // a's next connection: new columns, the same keys
	if again.Values[0] != 51 {
		t.Errorf("values %v, want a's 51", again.Values)
	}
	if gap.Columns != first.Columns || again.Columns != first.Columns {
		t.Errorf("the columns changed on a gap (%v) or on new columns of the same keys (%v)",
			gap.Columns != first.Columns, again.Columns != first.Columns)
	}
	more := tick(reading(3, 52), b)
	if more.Columns == first.Columns || more.Len() != 7 {
		t.Errorf("a's third GPU: %d values, columns kept %v", more.Len(), more.Columns == first.Columns)
	}
}

// closingFeed counts the feeds opened and closed.
type closingFeed struct {
	gobFeed
	closed *atomic.Int32
}

func (f closingFeed) Close() error { f.closed.Add(1); return nil }

// Each connection's feed (a stream's decoder) is closed when the
// connection ends: a host that drops and comes back does not leave one
// behind at each try.
func TestEachConnectionsFeedIsClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := newFakeNet()
		drop := func(c *fakeConn) { streaming(1, 40, 2)(c); c.end(255, "Connection to a closed by remote host.") }
		n.on("a", drop, drop, streaming(1, 40, 0))
		var opened, closed atomic.Int32
		src := Open(Options{Hosts: []string{"a"}, Interval: time.Second, Dial: n.dial,
			Open: func(r io.Reader) (Feed, error) {
				opened.Add(1)
				return closingFeed{gobFeed{gob.NewDecoder(r)}, &closed}, nil
			}})
		for range 12 {
			next(t, src)
		}
		if o, c := opened.Load(), closed.Load(); o < 3 || c != o-1 {
			t.Errorf("%d feeds opened, %d closed while the last streams: want 3 or more, all but the last closed", o, c)
		}
		src.Close()
		synctest.Wait()
		if o, c := opened.Load(), closed.Load(); c != o {
			t.Errorf("%d feeds opened, %d closed after Close", o, c)
		}
	})
}
