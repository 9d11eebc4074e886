package remote

import (
	"context"
	"encoding/gob"
	"io"
	"sync"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// A fake transport for the merge's tests: each dial of a host runs the
// script the test gave for it, which writes events (gob-encoded, standing
// in for the stream's encoding) to the connection's stdout.

type fakeConn struct {
	host    string
	out     *io.PipeWriter
	in      *io.PipeReader
	enc     *gob.Encoder
	exit    error
	stderr  string
	mu      sync.Mutex
	sent    []string
	closed  chan struct{}
	closing sync.Once
}

func (c *fakeConn) Stdout() io.Reader { return c.in }
func (c *fakeConn) Stderr() string    { c.mu.Lock(); defer c.mu.Unlock(); return c.stderr }

func (c *fakeConn) Send(line []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent = append(c.sent, string(line))
	return nil
}

func (c *fakeConn) Close() error {
	c.closing.Do(func() {
		close(c.closed)
		c.out.CloseWithError(io.EOF)
		c.in.Close()
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.exit
}

// script plays one connection: it writes events with c.send and returns
// when the stream ends (returning leaves the stream at EOF).
type script func(c *fakeConn)

func (c *fakeConn) send(ev Event) bool {
	w := wireEvent{Info: ev.Info}
	if s := ev.Sample; s != nil {
		w.Sample = &wireSample{At: s.At, Metrics: s.Metrics(), Probes: s.Probes, Processes: s.Processes,
			Owners: s.Owners, Markers: s.Markers, Progress: s.Progress}
	}
	return c.enc.Encode(w) == nil
}

// wireEvent is an Event as the fake sends it: a sample without what a
// Deriver made of it, as the stream's encoding leaves it out.
type wireEvent struct {
	Info   *timeline.SourceInfo
	Sample *wireSample
}

type wireSample struct {
	At        time.Time
	Metrics   []timeline.Metric
	Probes    []timeline.ProbeStatus
	Processes []timeline.Process
	Owners    []timeline.Owner
	Markers   []timeline.Marker
	Progress  []timeline.Progress
}

// end makes the stream end as a process that exited with code and stderr.
func (c *fakeConn) end(code int, stderr string) {
	c.mu.Lock()
	if code != 0 {
		c.exit = &ExitError{Code: code}
	}
	c.stderr = stderr
	c.mu.Unlock()
	c.out.Close()
}

type fakeNet struct {
	mu      sync.Mutex
	scripts map[string][]script // per host, one per dial; the last repeats
	dials   map[string]int
	conns   []*fakeConn
	wg      sync.WaitGroup
}

func newFakeNet() *fakeNet {
	return &fakeNet{scripts: map[string][]script{}, dials: map[string]int{}}
}

func (n *fakeNet) on(host string, s ...script) { n.scripts[host] = append(n.scripts[host], s...) }

func (n *fakeNet) dial(ctx context.Context, host string) (Conn, error) {
	n.mu.Lock()
	ss := n.scripts[host]
	i := min(n.dials[host], len(ss)-1)
	n.dials[host]++
	r, w := io.Pipe()
	c := &fakeConn{host: host, out: w, in: r, enc: gob.NewEncoder(w), closed: make(chan struct{})}
	n.conns = append(n.conns, c)
	n.mu.Unlock()
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		ss[i](c)
		c.out.Close()
	}()
	return c, nil
}

func (n *fakeNet) dialsOf(host string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.dials[host]
}

type gobFeed struct{ dec *gob.Decoder }

func (f gobFeed) Next() (Event, error) {
	var w wireEvent
	err := f.dec.Decode(&w)
	ev := Event{Info: w.Info}
	if s := w.Sample; s != nil {
		ev.Sample = new(timeline.Sample{At: s.At, Probes: s.Probes, Processes: s.Processes,
			Owners: s.Owners, Markers: s.Markers, Progress: s.Progress}.WithMetrics(s.Metrics))
	}
	return ev, err
}

func openGob(r io.Reader) (Feed, error) { return gobFeed{gob.NewDecoder(r)}, nil }

// node describes a host with n GPUs.
func node(n int) *timeline.SourceInfo {
	in := &timeline.SourceInfo{Kind: timeline.Demo, Host: "remote-name", Driver: "550.54.15", Interval: time.Second}
	for i := range n {
		in.GPUs = append(in.GPUs, timeline.GPUInfo{Index: i, Name: "H100", MemTotal: 80e9, PowerLimit: 700})
	}
	return in
}

// reading is a sample of a host with n GPUs, each at util.
func reading(n int, util float64) *timeline.Sample {
	var ms []timeline.Metric
	for i := range n {
		ms = append(ms, timeline.Metric{Key: timeline.Key{Name: "util", Device: timeline.GPUDevice(i)}, Value: util})
	}
	ms = append(ms, timeline.Metric{Key: timeline.Key{Name: "cpu", Device: "host"}, Value: 50})
	s := &timeline.Sample{At: time.Now()}
	s.SetMetrics(ms)
	s.Probes = []timeline.ProbeStatus{{Probe: "nvml", Device: "gpu0", State: timeline.ProbeOK}}
	return s
}

// streaming describes n GPUs and sends a sample every second at util, for
// count seconds (forever if count is 0), or until the connection closes.
func streaming(n int, util float64, count int) script {
	return func(c *fakeConn) {
		if !c.send(Event{Info: node(n)}) {
			return
		}
		for i := 0; count == 0 || i < count; i++ {
			if !c.send(Event{Sample: reading(n, util)}) {
				return
			}
			select {
			case <-c.closed:
				return
			case <-time.After(time.Second):
			}
		}
	}
}

// exiting ends at once like a process that exited with code and stderr.
func exiting(code int, stderr string) script {
	return func(c *fakeConn) { c.end(code, stderr) }
}

// hanging describes itself, sends one sample, then nothing until closed.
func hanging(n int) script {
	return func(c *fakeConn) {
		c.send(Event{Info: node(n)})
		c.send(Event{Sample: reading(n, 10)})
		<-c.closed
	}
}
