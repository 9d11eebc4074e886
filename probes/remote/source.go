package remote

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/xid"
)

// Options say which hosts to follow and how.
type Options struct {
	Hosts    []string
	Interval time.Duration
	// Transport is how the hosts are reached (for messages; Dial runs it).
	Transport Transport
	// Dial starts a host's stream; ProcessDialer(Transport, Interval) if nil.
	Dial Dialer
	// Open decodes a stream.
	Open OpenFeed
	// MarkLine is a marker as a stream's stdin takes it; nil sends none.
	MarkLine func(text string) []byte
	// HangAfter is how long a connected host may send nothing before it is
	// taken for hung and connected again: 5 intervals, at least 10 s.
	HangAfter time.Duration
}

// minBackoff and maxBackoff bound the wait before reconnecting: it doubles
// from the first to the second, and is the first again once a host has
// streamed. firstWait bounds how long the first sample waits for every
// host to answer or fail: ssh's ConnectTimeout and a little.
const (
	minBackoff = time.Second
	maxBackoff = 30 * time.Second
	firstWait  = 15 * time.Second
)

// Source is the merge of several hosts' streams, a timeline.Source and a
// timeline.MarkSink.
//
// It emits a sample on its own tick, every Interval: each host's oldest
// waiting sample, if it has one (a host with nothing new this tick holds its
// place with its last keys and no values: a gap, never a repeated value),
// renumbered into the session (its GPUs become gpuN in the order hosts were
// given, its other devices "host@NAME"), and every host's "remote" status.
// The sample's time is the viewer's tick, so hosts with clocks set apart
// still line up. Its values are the Source's again at the next call to
// Next. Its columns are the last tick's while every host gives the
// columns it gave then, so a merge costs a copy of the values and a
// pointer check a host.
//
// GPU numbers are given in host order when the first sample is made, which
// waits until every host has answered or failed (firstWait at most); a host
// that answers later, or comes back with more GPUs, is numbered after them,
// so a number never changes meaning within a session.
type Source struct {
	opts   Options
	hosts  []*host
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// settled has a token each time a host settles (answers or fails once).
	settled chan struct{}

	// Fields of Next (one goroutine at a time), and of Info under mu.
	mu      sync.Mutex
	info    timeline.SourceInfo
	perHost []hostLayout
	nextGPU int
	started bool
	// allSettled and firstAt are when the last host settled and when the
	// first sample was made, for the log and docs/performance.md.
	allSettled, firstAt time.Time
	nextTick            time.Time
	marks               []timeline.Marker
	recent              map[string]time.Time // marker texts given lately, by when
	// values are the last tick's values, the next tick's written over
	// them. columns are its columns, made of parts, each host's placed
	// columns in host order.
	values  []float64
	columns *timeline.Columns
	parts   []*timeline.Columns
	// spareParts hold the parts of the tick before the last, to be written over.
	spareParts []*timeline.Columns
	// ownersRead says a host read its GPUs' owners since the last tick
	// (mergeOwners).
	ownersRead bool
}

// hostLayout is where one host's devices sit in the session.
type hostLayout struct {
	described bool
	info      timeline.HostInfo
	kind      timeline.SourceKind
	gpus      []timeline.GPUInfo // session-wide, in its own order
	gpuIndex  map[int]int        // its NVML index → session index
	devices   map[string]string  // its device name → the session's
	// placed are the columns of its samples as the session names them,
	// made for its columns from; keep are the positions of from placed,
	// nil for all (those past the host's bounds are left out). A tick
	// with nothing due from the host holds its place with placed and no
	// values (gaps), so the Derivers downstream do not plan the tick's
	// keys again.
	from, placed *timeline.Columns
	keep         []int
	// owners are who held its GPUs when it last read them (session
	// indexes); ownersRead says it has read them at all.
	owners     []timeline.Owner
	ownersRead bool
	// overflowed says it named more GPUs or devices than one host may
	// (maxHostGPUs, maxHostDevices): the rest are left out, with a note.
	overflowed bool
}

// maxHostGPUs and maxHostDevices bound what one host may name over a
// session: eight GPUs of seven MIG slices each are 64, and a node's cores,
// links and disks a few hundred devices. A host that renumbered its GPUs
// every tick became 25,000 GPUs of the session and stopped its recording;
// one naming 20,000 new devices a tick took the viewer out of memory.
const (
	maxHostGPUs    = 512
	maxHostDevices = 8192
)

// Open starts following opts.Hosts; Close stops.
func Open(opts Options) *Source {
	if opts.Interval <= 0 {
		opts.Interval = time.Second
	}
	if opts.HangAfter <= 0 {
		opts.HangAfter = max(10*time.Second, 5*opts.Interval)
	}
	if opts.Dial == nil {
		opts.Dial = ProcessDialer(opts.Transport, opts.Interval)
	}
	s := newSource(opts)
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	for _, h := range s.hosts {
		s.wg.Go(func() { h.run(ctx) })
	}
	return s
}

// newSource is a Source whose hosts are not yet followed.
func newSource(opts Options) *Source {
	s := &Source{opts: opts, settled: make(chan struct{}, len(opts.Hosts)),
		perHost: make([]hostLayout, len(opts.Hosts)), recent: map[string]time.Time{}}
	s.info = timeline.SourceInfo{Kind: timeline.Live, Host: hostsTitle(opts.Hosts), Interval: opts.Interval}
	for i, name := range opts.Hosts {
		s.hosts = append(s.hosts, &host{name: name, opts: &s.opts, settledOnce: func() { s.settled <- struct{}{} }})
		s.info.Hosts = append(s.info.Hosts, timeline.HostInfo{Name: name})
		s.perHost[i] = hostLayout{gpuIndex: map[int]int{}, devices: map[string]string{}}
	}
	return s
}

// hostsTitle is the session's Host, for the header and the report's: the
// hosts by name while that is short, else how many and the first and last.
func hostsTitle(hosts []string) string {
	if all := strings.Join(hosts, ", "); len(all) <= 32 {
		return all
	}
	return fmt.Sprintf("%d hosts, %s…%s", len(hosts), hosts[0], hosts[len(hosts)-1])
}

// Close ends every host's stream and returns when every child has been
// reaped. A host's goroutine still busy with what its stream sent (a
// hostile stream that inflates as it decodes) does not hold it up past
// closeWait: its child is reaped, and the goroutine ends at its next read.
func (s *Source) Close() error {
	s.cancel()
	var reaped sync.WaitGroup
	for _, h := range s.hosts {
		reaped.Go(h.hangUp)
	}
	reaped.Wait()
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(closeWait):
	}
	return nil
}

// closeWait bounds how long Close waits for the hosts' goroutines once
// their children are gone: a quit must not wait on one bad host.
const closeWait = 2 * time.Second

// Connections says how each host's connection stands now, as a
// timeline.RemoteProbe status by host name: failed with the reason and the
// retry, connecting (late), or up (ok). It takes nothing from the hosts:
// the screen asks it before the first sample, which waits for every host
// to answer or fail (firstWait), so that a host that failed at once says
// why from the first second.
func (s *Source) Connections() []timeline.ProbeStatus {
	out := make([]timeline.ProbeStatus, 0, len(s.hosts))
	for _, h := range s.hosts {
		h.mu.Lock()
		st := timeline.ProbeStatus{Probe: timeline.RemoteProbe, Device: h.name}
		switch {
		case h.reason != "":
			st.State, st.Err = timeline.ProbeFailed, h.reason
		case !h.up:
			st.State, st.Err = timeline.ProbeLate, "connecting"
		}
		h.mu.Unlock()
		out = append(out, st)
	}
	return out
}

// Info describes the session as it stands: every host named, each one's
// GPUs once it has described them. Its lists are the same arrays until the
// description changes (new ones then, never these changed in place), as a
// Sampler's are: the Judge asks with every sample, and knows a description
// handed again by them (copied, they were 512 GPUs' a second to compare).
func (s *Source) Info() timeline.SourceInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.info
}

// Mark is the m key's marker: see MarkFrom.
func (s *Source) Mark(text string) { s.MarkFrom("key", text) }

// MarkLine is a marker as a stream's stdin takes it: "mark TEXT", one
// line (cmd_stream.go).
func MarkLine(text string) []byte { return []byte("mark " + text + "\n") }

// MarkFrom sends a marker to every host's stream (so each host's own
// recording keeps it) and puts it on the session's next sample.
func (s *Source) MarkFrom(origin, text string) {
	s.mu.Lock()
	if len(s.marks) < hostMarkers {
		s.marks = append(s.marks, timeline.Marker{Text: text, Origin: origin})
	}
	s.mu.Unlock()
	if s.opts.MarkLine == nil {
		return
	}
	line := s.opts.MarkLine(text)
	for _, h := range s.hosts {
		h.sendLine(line)
	}
}

// Received is how many bytes the hosts' streams have carried so far.
func (s *Source) Received() int64 {
	var n int64
	for _, h := range s.hosts {
		h.mu.Lock()
		n += h.received
		h.mu.Unlock()
	}
	return n
}

// FirstSample says when every host had answered or failed, and when the
// first sample was made (zero times before it was).
func (s *Source) FirstSample() (settled, first time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.allSettled, s.firstAt
}

// Next waits for the next tick and returns the merged sample.
func (s *Source) Next(ctx context.Context) (timeline.Sample, error) {
	if !s.started {
		if err := s.waitFirst(ctx); err != nil {
			return timeline.Sample{}, err
		}
		s.started = true
		s.mu.Lock()
		s.allSettled = time.Now()
		s.mu.Unlock()
		// Half an interval on, every host's first sample has waited long
		// enough to be taken (see host.take).
		s.nextTick = time.Now().Add(s.opts.Interval / 2)
	}
	select {
	case <-ctx.Done():
		return timeline.Sample{}, ctx.Err()
	case <-time.After(time.Until(s.nextTick)):
	}
	now := time.Now()
	if s.firstAt.IsZero() {
		s.mu.Lock()
		s.firstAt = now
		s.mu.Unlock()
	}
	// A viewer that fell behind skips the ticks it missed.
	s.nextTick = s.nextTick.Add(s.opts.Interval)
	if s.nextTick.Before(now) {
		s.nextTick = now.Add(s.opts.Interval)
	}
	return s.merge(now), nil
}

// waitFirst waits until every host has answered or failed, or firstWait.
func (s *Source) waitFirst(ctx context.Context) error {
	timeout := time.After(firstWait)
	for n := 0; n < len(s.hosts); n++ {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timeout:
			return nil
		case <-s.settled:
		}
	}
	return nil
}

// recentMarks is how long a marker's text is remembered: the same text from
// several hosts (each rank's "epoch 3", or the session's own marker coming
// back in each host's stream) is one marker.
const recentMarks = 30 * time.Second

// merge builds the sample of the tick at now.
func (s *Source) merge(now time.Time) timeline.Sample {
	out := timeline.Sample{At: now}
	s.mu.Lock()
	defer s.mu.Unlock()
	maps.DeleteFunc(s.recent, func(_ string, at time.Time) bool { return now.Sub(at) > recentMarks })
	for _, m := range s.marks {
		s.recent[m.Text] = now
		m.At = now
		out.Markers = append(out.Markers, m)
	}
	s.marks = s.marks[:0]
	changed := false
	values, parts := s.values[:0], s.spareParts[:0]
	for i, h := range s.hosts {
		smp, marks, info, st := h.take(now, s.opts.Interval)
		if info != nil {
			s.describe(i, info)
			changed = true
		}
		out.Probes = append(out.Probes, st)
		for _, m := range marks {
			m = s.sessionMarker(i, m)
			if _, seen := s.recent[m.Text]; seen || len(s.recent) >= 4*hostMarkers {
				continue
			}
			s.recent[m.Text] = now
			m.At = now
			out.Markers = append(out.Markers, m)
		}
		l := &s.perHost[i]
		switch {
		case smp != nil:
			if s.place(i, smp, &out) {
				changed = true
			}
			values = timeline.AppendKept(values, smp.Values, l.keep)
			h.giveBack(smp) // copied into out: its values are the feed's again
		default:
			// Nothing due: the host keeps its place with gaps (NaN, never
			// a repeated value), as a late probe does in a sampler, so the
			// tick's columns are those of the tick before and neither
			// Deriver downstream plans 37,000 keys again for one late host.
			for range l.placed.Len() {
				values = append(values, math.NaN())
			}
		}
		if l.placed.Len() > 0 {
			parts = append(parts, l.placed)
		}
	}
	if !slices.Equal(parts, s.parts) {
		s.columns = joinColumns(parts)
	}
	// Clipped: a sink that appends to the sample's values makes a slice
	// of its own, never writing where the next tick's values stand.
	s.values, s.parts, s.spareParts = values, parts, s.parts
	out.Columns, out.Values = s.columns, slices.Clip(values)
	s.mergeOwners(&out)
	if changed {
		s.describeSession()
	}
	return out
}

// sessionMarker is host i's marker as the session names it: an Xid's GPU
// is the host's own index in its text ("GPU1 Xid 79"), the session's
// index in the session's (node2's GPU1 is GPU9), or the gpu-error hint
// would blame GPU1 of the first host, and two hosts' Xids on their GPU1
// would read as one marker.
func (s *Source) sessionMarker(i int, m timeline.Marker) timeline.Marker {
	if m.Origin != timeline.XidOrigin {
		return m
	}
	if gpu, code, ok := xid.ParseMarker(m.Text); ok {
		if idx := s.gpuOf(i, gpu); idx >= 0 {
			m.Text = xid.MarkerText(idx, code)
		}
	}
	return m
}

// describe takes host i's description.
func (s *Source) describe(i int, in *timeline.SourceInfo) {
	l := &s.perHost[i]
	name := s.opts.Hosts[i]
	l.described = true
	l.kind = in.Kind
	l.info = timeline.HostInfo{Name: name, Driver: in.Driver, CUDA: in.CUDA, Notes: slices.Clone(in.Notes)}
	for _, g := range in.GPUs {
		k := g.OnHost()
		idx := s.gpuOf(i, k)
		if idx < 0 {
			continue
		}
		g.Index, g.Host, g.HostIndex = idx, name, k
		l.setGPU(g)
	}
}

// gpuOf is the session index of host i's GPU k, given now if it has none;
// -1 once the host or the session has as many GPUs as it may.
func (s *Source) gpuOf(i, k int) int {
	l := &s.perHost[i]
	if idx, ok := l.gpuIndex[k]; ok {
		return idx
	}
	if len(l.gpuIndex) >= maxHostGPUs || s.nextGPU >= timeline.MaxGPUs {
		l.overflowed = true
		return -1
	}
	idx := s.nextGPU
	s.nextGPU++
	l.gpuIndex[k] = idx
	l.setGPU(timeline.GPUInfo{Index: idx, Host: s.opts.Hosts[i], HostIndex: k, Name: "GPU", MemTotal: math.NaN(), PowerLimit: math.NaN()})
	return idx
}

func (l *hostLayout) setGPU(g timeline.GPUInfo) {
	if j := slices.IndexFunc(l.gpus, func(h timeline.GPUInfo) bool { return h.Index == g.Index }); j >= 0 {
		l.gpus[j] = g
	} else {
		l.gpus = append(l.gpus, g)
	}
}

// describeSession rebuilds the session's description from the hosts'.
func (s *Source) describeSession() {
	var gpus []timeline.GPUInfo
	hosts := make([]timeline.HostInfo, len(s.hosts))
	kind := timeline.Demo // Live once any host is not a demo
	driver, cuda := "", ""
	for i := range s.perHost {
		l := &s.perHost[i]
		hosts[i] = l.info
		hosts[i].Name = s.opts.Hosts[i]
		if l.overflowed {
			hosts[i].Notes = append(slices.Clone(hosts[i].Notes), fmt.Sprintf("%s named more than %d GPUs or %d devices: the rest are left out",
				hosts[i].Name, maxHostGPUs, maxHostDevices))
		}
		gpus = append(gpus, l.gpus...)
		if l.described {
			if l.kind != timeline.Demo {
				kind = timeline.Live
			}
			if driver == "" {
				driver, cuda = l.info.Driver, l.info.CUDA
			} else if driver != l.info.Driver {
				driver, cuda = "", ""
			}
		}
	}
	slices.SortFunc(gpus, func(a, b timeline.GPUInfo) int { return a.Index - b.Index })
	s.info.Kind, s.info.GPUs, s.info.Hosts, s.info.Driver, s.info.CUDA = kind, gpus, hosts, driver, cuda
}

// place names host i's sample as the session does: its columns and owners
// in the host's layout, its statuses and processes into out. It says
// whether it named a GPU the session did not know.
func (s *Source) place(i int, smp *timeline.Sample, out *timeline.Sample) bool {
	l := &s.perHost[i]
	name := s.opts.Hosts[i]
	grew := false
	// device is the session's name of the host's device d; "" for one
	// past the host's bounds, whose readings are left out.
	device := func(d string) string {
		if n, ok := l.devices[d]; ok {
			return n
		}
		if len(l.devices) >= maxHostDevices {
			grew = grew || !l.overflowed
			l.overflowed = true
			return ""
		}
		var n string
		if k, ok := timeline.ParseGPUDevice(d); ok {
			if _, known := l.gpuIndex[k]; !known {
				grew = true // a GPU of the session's, or its host's note
			}
			idx := s.gpuOf(i, k)
			if idx < 0 {
				return ""
			}
			n = timeline.GPUDevice(idx)
		} else {
			n = timeline.DeviceOnHost(d, name)
		}
		l.devices[d] = n
		return n
	}
	if smp.Columns != l.from {
		l.placeColumns(smp.Columns, device)
	}
	for _, p := range smp.Probes {
		if p.Device = device(p.Device); p.Device != "" {
			out.Probes = append(out.Probes, p)
		}
	}
	for _, p := range smp.Processes {
		if p.GPU = s.gpuOf(i, p.GPU); p.GPU >= 0 {
			out.Processes = append(out.Processes, p)
		}
	}
	if smp.Owners != nil {
		l.owners, l.ownersRead, s.ownersRead = l.owners[:0], true, true
		for _, o := range smp.Owners {
			if o.GPU = s.gpuOf(i, o.GPU); o.GPU >= 0 {
				l.owners = append(l.owners, o)
			}
		}
	}
	return grew
}

// placeColumns names the columns cols of the host's samples as the
// session does, device giving each device's name ("" leaves its columns
// out).
func (l *hostLayout) placeColumns(cols *timeline.Columns, device func(string) string) {
	// A sample lists each device's metrics together: one lookup a device.
	var from, to string
	placed, keep := cols.Select(func(k timeline.Key) (timeline.Key, bool) {
		if k.Device != from {
			from, to = k.Device, device(k.Device)
		}
		k.Device = to
		return k, to != ""
	})
	if !placed.Same(l.placed) {
		l.placed = placed
	}
	l.from, l.keep = cols, keep
}

// joinColumns are the columns of parts one after the other.
func joinColumns(parts []*timeline.Columns) *timeline.Columns {
	var keys []timeline.Key
	var kinds []timeline.Kind
	for _, p := range parts {
		keys, kinds = append(keys, p.Keys()...), append(kinds, p.Kinds()...)
	}
	return timeline.NewColumns(keys, kinds)
}

// mergeOwners gives out every host's owners as each last read them, on a
// tick where any host read its own: a sample's owners are the whole
// session's, and the hosts read theirs on ticks of their own, so one
// host's list alone would say the others' GPUs were free.
func (s *Source) mergeOwners(out *timeline.Sample) {
	if !s.ownersRead {
		return
	}
	s.ownersRead = false
	out.Owners = []timeline.Owner{}
	for i := range s.perHost {
		if l := &s.perHost[i]; l.ownersRead {
			out.Owners = append(out.Owners, l.owners...)
		}
	}
}
