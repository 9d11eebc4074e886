package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// Feed is one host's stream, decoded.
type Feed interface {
	// Next returns what the host sent next: its description (first, and
	// again whenever it changes) or a sample.
	Next() (Event, error)
}

// recycler is a Feed that takes back the values of a sample it returned,
// once merged, to decode the next one into: 64 hosts' samples are 300 KB a
// second of garbage otherwise.
type recycler interface {
	Recycle(v []float64)
}

// Event is one thing a host's stream carries.
type Event struct {
	Info   *timeline.SourceInfo
	Sample *timeline.Sample
}

// OpenFeed reads a stream's handshake and returns the feed that decodes the
// rest; a stream of another version of gputop fails here.
type OpenFeed func(r io.Reader) (Feed, error)

// Per-host bounds: a host is a few samples and markers behind at most,
// whatever it sends and however slowly the viewer takes them.
const (
	// hostQueue samples wait for the viewer's tick: two absorb the jitter
	// between the host's clock and the viewer's, the rest a short stall.
	hostQueue = 4
	// hostMarkers markers wait for the next sample.
	hostMarkers = 64
	// sendQueue markers wait to be written to a host's stdin.
	sendQueue = 16
)

// host follows one host: it connects, reads, and on any fault says why,
// waits (1 s, doubling to 30 s) and connects again, until the session ends.
type host struct {
	name string
	opts *Options

	mu      sync.Mutex
	info    *timeline.SourceInfo // the latest description, until taken
	queue   []timeline.Sample    // samples waiting for the viewer's tick
	markers []timeline.Marker
	up      bool   // connected and streaming
	settled bool   // described itself and sent a sample, or failed once
	reason  string // why it is down, with the retry; "" while up
	told    bool   // a tick has reported reason
	// untold is a reason that was replaced before any tick reported it: a
	// drop whose first retry failed within the tick, while the tick still
	// took a sample queued before the drop. The next tick without a sample
	// reports it, so the recording says the host dropped before it says
	// why the retry failed.
	untold   string
	send     chan []byte
	conn     Conn  // the connection now, for hangUp; nil between them
	received int64 // bytes read from its stream, for the wire figure
	lag      lag   // how far the host's sample times run behind arrival
	// spare are the values of a sample merged since, for the feed to
	// decode the next one into (recycler).
	spare []float64

	settledOnce func()
}

// run follows the host until ctx ends; every child it started is reaped by
// then.
func (h *host) run(ctx context.Context) {
	backoff := minBackoff
	for ctx.Err() == nil {
		streamed, why := h.connect(ctx)
		if ctx.Err() != nil {
			return
		}
		if streamed {
			backoff = minBackoff
		}
		h.down(why, backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// connect runs one connection to its end, and says whether samples came
// and, in one line, why it ended.
func (h *host) connect(ctx context.Context) (bool, string) {
	conn, err := h.opts.Dial(ctx, h.name)
	if err != nil {
		return false, err.Error()
	}
	var hung, quit atomic.Bool
	// A host that sends nothing for HangAfter is killed and tried again: a
	// half-open TCP connection never ends by itself.
	watchdog := time.AfterFunc(h.opts.HangAfter, func() {
		hung.Store(true)
		conn.Close()
	})
	stopCtx := context.AfterFunc(ctx, func() {
		quit.Store(true)
		conn.Close()
	})
	send := make(chan []byte, sendQueue)
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for line := range send {
			if conn.Send(line) != nil {
				for range send {
				}
				return
			}
		}
	}()
	h.mu.Lock()
	h.send, h.conn = send, conn
	h.mu.Unlock()

	streamed, err := h.follow(conn, watchdog)

	h.mu.Lock()
	h.send, h.conn = nil, nil
	h.up = false
	h.mu.Unlock()
	close(send)
	watchdog.Stop()
	stopCtx()
	exit := conn.Close()
	<-sent
	if quit.Load() {
		return streamed, "quit"
	}
	return streamed, h.why(err, exit, conn.Stderr(), hung.Load(), streamed)
}

// hangUp ends the host's connection, if it has one, and returns once its
// child is reaped: what Close does for every host whatever its goroutine
// is busy with. The session's end (its context) ends the connection too;
// Close is idempotent, so whichever comes second waits for the first.
func (h *host) hangUp() {
	h.mu.Lock()
	conn := h.conn
	h.mu.Unlock()
	if conn != nil {
		conn.Close()
	}
}

// counter counts the bytes read through it.
type counter struct {
	r io.Reader
	h *host
}

func (c counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.h.mu.Lock()
	c.h.received += int64(n)
	c.h.mu.Unlock()
	return n, err
}

// follow reads the stream until it ends.
func (h *host) follow(conn Conn, watchdog *time.Timer) (bool, error) {
	feed, err := h.opts.Open(counter{conn.Stdout(), h})
	if err != nil {
		return false, err
	}
	// A stream's decoder is let go of with the connection it read, not
	// left to the collector after each reconnection.
	if c, ok := feed.(io.Closer); ok {
		defer c.Close()
	}
	streamed := false
	h.mu.Lock()
	h.lag = lag{} // a new connection, maybe a host with its clock reset
	h.mu.Unlock()
	recycle, _ := feed.(recycler)
	for {
		if recycle != nil {
			h.mu.Lock()
			m := h.spare
			h.spare = nil
			h.mu.Unlock()
			if m != nil {
				recycle.Recycle(m)
			}
		}
		ev, err := feed.Next()
		if err != nil {
			return streamed, err
		}
		watchdog.Reset(h.opts.HangAfter)
		h.mu.Lock()
		if ev.Info != nil {
			info := *ev.Info
			h.info = &info
		}
		if ev.Sample != nil {
			h.push(ev.Sample)
			if !streamed {
				streamed = true
				h.up, h.reason, h.untold = true, "", ""
				h.settle()
			}
		}
		h.mu.Unlock()
	}
}

// lag tracks the least delay between a host's sample times and their
// arrival here, over the last lagWindow samples or so: the host's clock
// set apart from this one plus the link's best time. A window, so that
// clocks drifting apart or stepped by NTP are followed within minutes.
type lag struct {
	cur, prev time.Duration
	n         int
	hasPrev   bool
}

const lagWindow = 64

func (l *lag) add(d time.Duration) {
	if l.n == 0 || d < l.cur {
		l.cur = d
	}
	l.n++
	if l.n == lagWindow {
		l.prev, l.hasPrev, l.n = l.cur, true, 0
	}
}

// least is the least delay of this window and the last.
func (l *lag) least() time.Duration {
	switch {
	case l.n == 0:
		return l.prev
	case l.hasPrev:
		return min(l.cur, l.prev)
	}
	return l.cur
}

// push queues a sample, under h.mu: its markers are kept apart (bounded)
// so that a sample dropped to stay current does not take them with it.
func (h *host) push(s *timeline.Sample) {
	if n := len(s.Markers); n > 0 {
		h.markers = append(h.markers, s.Markers...)
		if over := len(h.markers) - hostMarkers; over > 0 {
			h.markers = append(h.markers[:0], h.markers[over:]...)
		}
		s.Markers = nil
	}
	if len(h.queue) == hostQueue {
		h.queue = append(h.queue[:0], h.queue[1:]...)
	}
	h.lag.add(time.Since(s.At))
	h.queue = append(h.queue, *s)
}

// settle says, once, that the host has either answered or failed: the
// first frame waits for every host to settle.
func (h *host) settle() {
	if !h.settled {
		h.settled = true
		h.settledOnce()
	}
}

// down records why the host is down, under its lock.
func (h *host) down(why string, retry time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.up = false
	if h.reason != "" && !h.told && h.untold == "" {
		h.untold = h.reason
	}
	h.told = false
	h.reason = fmt.Sprintf("%s; retrying in %s", why, retryText(retry))
	h.settle()
}

func retryText(d time.Duration) string {
	if d < time.Second {
		return d.String()
	}
	return fmt.Sprintf("%ds", int(d.Round(time.Second)/time.Second))
}

// why says in one line why a connection ended.
func (h *host) why(err, exit error, stderr string, hung, streamed bool) string {
	var code *ExitError
	exited := errors.As(exit, &code)
	line := lastLine(stderr)
	remote := h.opts.Transport.remote()
	var version interface{ Want() string } // the stream reader's version error
	switch {
	case hung:
		return fmt.Sprintf("no answer for %s", retryText(h.opts.HangAfter))
	case exited && code.Code == 127, notFound(line, remote):
		return fmt.Sprintf("%s is not installed on %s", remote, h.name)
	case strings.Contains(line, `unknown command "stream"`):
		// A gputop from before streams: its usage error.
		return fmt.Sprintf("%s runs an older gputop (no stream); upgrade it there", h.name)
	case errors.As(err, &version):
		return oneLine(err.Error())
	case exited && code.Code == 255 && h.opts.Transport.isSSH() && !streamed:
		// ssh's own failure: it says why on its last line.
		if line == "" {
			return "cannot connect (ssh exit status 255)"
		}
		return "cannot connect: " + line
	}
	what := "ended"
	if streamed {
		what = "dropped"
	}
	switch {
	case line != "":
		// What the transport or the stream said beats what reading found.
		return what + ": " + line
	case err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !isClosedPipe(err):
		// The stream's own refusal: bytes that are no stream, damage.
		return oneLine(err.Error())
	case exit != nil:
		return what + " (" + exit.Error() + ")"
	}
	return what
}

// notFound says whether a shell's last line says the remote command is
// missing: bash's "gputop: command not found", dash's "sh: 1: gputop: not
// found", env's "env: 'gputop': No such file or directory", a container
// runtime's "exec: \"gputop\": executable file not found in $PATH".
func notFound(line, remote string) bool {
	if !strings.Contains(line, remote) {
		return false
	}
	return strings.Contains(line, "command not found") || strings.HasSuffix(line, ": not found") ||
		strings.Contains(line, "No such file or directory") || strings.Contains(line, "executable file not found")
}

func isClosedPipe(err error) bool {
	return strings.Contains(err.Error(), "file already closed") || strings.Contains(err.Error(), "closed pipe")
}

func oneLine(s string) string { return lastLine(strings.ReplaceAll(s, "\n", " ")) }

// giveBack hands the values of a sample take returned, now merged, back
// to the host's feed (recycler).
func (h *host) giveBack(s *timeline.Sample) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if cap(s.Values) > cap(h.spare) {
		h.spare = s.Values
	}
}

// take is what the viewer's tick at now takes from the host: a queued
// sample (nil: a gap), its markers, a new description, and its status.
//
// The host's clock and the viewer's tick at the same interval but not in
// step, and the samples come over a link whose delay wavers: taken as they
// arrive, a sample a millisecond after one tick and the next a millisecond
// before the following tick would leave a gap, then two at once. So a
// sample is due by its own time on the host, moved onto the viewer's clock
// by the smallest delay seen lately (lag), plus half an interval: the link
// may be up to half an interval slower than its best without a gap, and
// the phase between the two clocks, which drifts by parts per million,
// decides nothing from one tick to the next.
func (h *host) take(now time.Time, interval time.Duration) (*timeline.Sample, []timeline.Marker, *timeline.SourceInfo, timeline.ProbeStatus) {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := timeline.ProbeStatus{Probe: timeline.RemoteProbe, Device: h.name}
	var s *timeline.Sample
	due := 0
	cut := now.Add(-interval / 2)
	for due < len(h.queue) && !h.queue[due].At.Add(h.lag.least()).After(cut) {
		due++
	}
	// More than two due means the viewer fell behind: keep it current.
	if over := due - 2; over > 0 {
		h.queue = append(h.queue[:0], h.queue[over:]...)
		due -= over
	}
	if due > 0 {
		first := h.queue[0]
		s = &first
		h.queue = append(h.queue[:0], h.queue[1:]...)
	}
	marks, info := h.markers, h.info
	h.markers, h.info = nil, nil
	switch {
	case s != nil:
		// A sample that came before a drop is still good: the status is
		// this tick's, and says the drop from the next one on.
	case h.untold != "":
		st.State, st.Err = timeline.ProbeFailed, h.untold
		h.untold = ""
	case h.reason != "":
		// Failed, never Lost: a host is always tried again, and a Lost
		// device is one that is not.
		st.State, st.Err = timeline.ProbeFailed, h.reason
		h.told = true
	case !h.up:
		st.State, st.Err = timeline.ProbeLate, "connecting"
	default:
		st.State = timeline.ProbeLate // up, but nothing new this tick
	}
	return s, marks, info, st
}

// sendLine queues a line for the host's stdin; it is dropped when the host
// is down or not reading.
func (h *host) sendLine(line []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.send == nil {
		return
	}
	select {
	case h.send <- line:
	default:
	}
}
