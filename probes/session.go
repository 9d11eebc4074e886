package probes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gputop-dev/gputop/probes/nvidia"
	"github.com/gputop-dev/gputop/probes/owners"
	"github.com/gputop-dev/gputop/probes/progress"
	"github.com/gputop-dev/gputop/timeline"
)

// SessionConfig says what a live or demo session samples.
type SessionConfig struct {
	Interval time.Duration
	// Machine is a simulated machine to sample in place of this one (the
	// demo's, from probes/demo); nil reads this machine's GPUs and host.
	Machine *Machine
	// Clock is the sampler's time: RealClock{} or a FastClock for recording
	// a demo as fast as it runs. A Machine must run on the same clock, or
	// what it plays would not match the samples' times.
	Clock Clock
	// NewNVML gives the real library; tests replace it. Nil means nvml.New.
	NewNVML func() nvml.Interface
	// Job is the process tree of the job `gputop run` wraps, sampled
	// beside the standard probes, and Command its command line, which Info
	// names: the session is the job's, its processes marked as the job's
	// (Process.InJob). Nil in every other session.
	Job     *TreeProbe
	Command []string
	// AlignTicks samples on whole multiples of Interval (SamplerConfig):
	// `gputop stream`, one of many hosts a viewer follows.
	AlignTicks bool
	// Timeout is how long a probe's Collect may take before its tick goes
	// on without it (SamplerConfig.Timeout); zero is the sampler's default.
	// A simulated Machine on a FastClock waits simulatedTimeout.
	Timeout time.Duration
	// Owners says where a session of this machine looks for who holds
	// each GPU (probes/owners): its zero value, the kubelet's and Slurm's
	// own paths. The session fills in its GPUs.
	Owners owners.Config
	// Pace is how often the NVML probe makes its costly calls; nil is
	// nvidia.DefaultPace, or EveryTick on a Machine that asks for it
	// (probes/demo's pace_test.go holds the two to the same hints).
	Pace *nvidia.Pace
}

// Machine is a machine a session samples in place of this one: GPUs behind
// an nvml.Interface, which the real NVML probe reads as it reads a driver,
// a host probe, the processes on the GPUs, and how the source describes
// itself. probes/demo builds one; probes takes it as a value so that it
// never imports what simulates it.
type Machine struct {
	NVML      nvml.Interface
	Host      Probe
	Processes ProcessLookup
	// Kind, Scenario and Hostname become the session's SourceInfo fields
	// of the same names.
	Kind     timeline.SourceKind
	Scenario string
	Hostname string
	// Note is the first of Info().Notes: what the machine is, in one line.
	Note string
	// Owners, if not nil, says who each GPU is allocated to, in place of
	// this machine's kubelet and Slurm (probes/owners).
	Owners Probe
	// EveryTick makes every NVML call every tick (nvidia.EveryTick) unless
	// SessionConfig.Pace says otherwise: the demo's mock costs nothing,
	// and its screens and reports keep each tick's own sub-second range.
	EveryTick bool
}

// Session is a Sampler over every probe a session has: one per GPU, the
// host, gputop itself, and GPU processes on the slower tier.
type Session struct {
	*Sampler
	nvml   *nvidia.NVML
	owners *owners.Probe // this machine's kubelet connection, if any
}

// OpenSession finds the GPUs and builds the sampler. Without a Machine it
// opens the real NVML library; when that fails it samples the host alone,
// and Info().Notes says why in one line (and that --demo exists) while
// Info().Checks lists every check made.
func OpenSession(cfg SessionConfig) *Session {
	if cfg.Clock == nil {
		cfg.Clock = RealClock{}
	}
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	info := timeline.SourceInfo{Kind: timeline.Live, Interval: cfg.Interval}
	var lib nvml.Interface
	var lookup ProcessLookup
	host := NewHostProbe()
	if m := cfg.Machine; m != nil {
		lib, lookup, host = m.NVML, m.Processes, m.Host
		info.Kind, info.Scenario, info.Host = m.Kind, m.Scenario, m.Hostname
		if m.Note != "" {
			info.Notes = append(info.Notes, m.Note)
		}
	} else {
		info.Host, _ = os.Hostname()
		lookup = NewProcessLookup()
		info.Checks = append(info.Checks, deviceNodeCheck())
		if cfg.NewNVML != nil {
			lib = cfg.NewNVML()
		} else {
			lib = nvml.New()
		}
	}
	s := &Session{}
	probes := []Probe{}
	var slow []Probe
	pace := nvidia.DefaultPace
	switch {
	case cfg.Pace != nil:
		pace = *cfg.Pace
	case cfg.Machine != nil && cfg.Machine.EveryTick:
		pace = nvidia.EveryTick
	}
	nv, err := nvidia.OpenNVMLPaced(lib, cfg.Clock, pace)
	if err != nil {
		info.Notes = append(info.Notes, noGPUNote(err))
		info.Checks = append(info.Checks, err.Error())
	} else {
		s.nvml = nv
		info.GPUs, info.Driver, info.CUDA = nv.GPUs(), nv.Driver(), nv.CUDA()
		info.Checks = append(info.Checks, nv.Checks()...)
		probes = append(probes, nv.Probes()...)
		slow = append(slow, nv.ProcessProbe(lookup))
	}
	var own []Probe
	switch {
	case cfg.Machine != nil && cfg.Machine.Owners != nil:
		own = append(own, cfg.Machine.Owners)
	case cfg.Machine == nil && len(info.GPUs) > 0:
		// Who holds each GPU, from the kubelet or Slurm: looked for once
		// here, and then once a minute while missing.
		oc := cfg.Owners
		oc.GPUs = info.GPUs
		s.owners = owners.New(oc)
		info.Checks = append(info.Checks, s.owners.Checks()...)
		own = append(own, s.owners)
	}
	probes = append(probes, host, NewSelfProbe())
	if cfg.Job != nil {
		probes = append(probes, cfg.Job)
		info.Command = cfg.Command
	}
	// A simulated machine on a simulated clock never hangs, and what it
	// records must not depend on how busy the real one is: a probe left
	// behind under load, or an Xid watcher a few ticks behind the clock,
	// made a --fast recording, and every test on one, differ from run to
	// run. Its Xids are handed out at each tick instead (DrainXid).
	_, fast := cfg.Clock.(*FastClock)
	simulated := fast && cfg.Machine != nil
	timeout := cfg.Timeout
	if simulated && timeout == 0 {
		timeout = simulatedTimeout
	}
	var beforeTick func()
	if simulated && s.nvml != nil {
		beforeTick = s.nvml.DrainXid
	}
	s.Sampler = NewSampler(SamplerConfig{
		Interval:   cfg.Interval,
		Timeout:    timeout,
		Probes:     probes,
		Slow:       slow,
		Owners:     own,
		Job:        cfg.Job,
		Clock:      cfg.Clock,
		Info:       info,
		AlignTicks: cfg.AlignTicks,
		BeforeTick: beforeTick,
	})
	if s.nvml != nil {
		// Xid events become markers on the sampler's next sample. The
		// watcher's checks join the others before anyone reads Info.
		before := len(s.nvml.Checks())
		if simulated {
			s.nvml.PollXid(s.Sampler.MarkAt)
		} else {
			s.nvml.WatchXid(s.Sampler.MarkAt)
		}
		s.Sampler.info.Checks = append(s.Sampler.info.Checks, s.nvml.Checks()[before:]...)
	}
	return s
}

// noGPUNote is the one line a person without a GPU sees: what it means
// and what to do first, so that a line cut at the screen's edge loses only
// the detail of why.
func noGPUNote(err error) string {
	return fmt.Sprintf("no GPUs: host only (--demo simulates 8 H100s); %v", err)
}

func deviceNodeCheck() string {
	nodes, err := nvidia.DeviceNodes()
	switch {
	case err != nil:
		return "/dev/nvidia*: " + err.Error()
	case len(nodes) == 0:
		return "/dev/nvidia*: no device nodes"
	}
	return fmt.Sprintf("/dev/nvidia*: %d device nodes", len(nodes))
}

// Close stops sampling and shuts NVML down.
func (s *Session) Close() error {
	s.Sampler.Close()
	var err error
	if s.owners != nil {
		err = s.owners.Close()
	}
	if s.nvml != nil {
		err = errors.Join(err, s.nvml.Close())
	}
	return err
}

// PendingSession opens a session in the background, because without
// persistence mode NVML's Init can take a second or more and the screen
// should be up meanwhile. Until it is open, Info describes what is known
// (the source kind, the interval) and Next waits.
type PendingSession struct {
	cfg   SessionConfig
	ready chan struct{}
	sess  *Session
	mu    sync.Mutex
	marks []pendingMark
	// early is the newest progress reading from before the session opened
	// (sampler_progress.go).
	early       progress.Reading
	earlyOrigin string
	hasEarly    bool
}

// OpenPending starts opening a session and returns at once.
func OpenPending(cfg SessionConfig) *PendingSession {
	p := &PendingSession{cfg: cfg, ready: make(chan struct{})}
	go func() {
		p.sess = OpenSession(cfg)
		close(p.ready)
	}()
	return p
}

// Info describes the session: in full once it is open.
func (p *PendingSession) Info() timeline.SourceInfo {
	select {
	case <-p.ready:
		return p.sess.Info()
	default:
	}
	info := timeline.SourceInfo{Kind: timeline.Live, Interval: p.cfg.Interval, Notes: []string{"looking for GPUs"}, Command: p.cfg.Command}
	if m := p.cfg.Machine; m != nil {
		info.Kind, info.Scenario = m.Kind, m.Scenario
	}
	return info
}

// Wait waits for the session to open, or for ctx to be done.
func (p *PendingSession) Wait(ctx context.Context) error {
	select {
	case <-p.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Next waits for the session to open, then for its next sample.
func (p *PendingSession) Next(ctx context.Context) (timeline.Sample, error) {
	select {
	case <-p.ready:
	case <-ctx.Done():
		return timeline.Sample{}, ctx.Err()
	}
	p.mu.Lock()
	for _, m := range p.marks {
		p.sess.MarkFrom(m.origin, m.text)
	}
	p.marks = nil
	p.deliverEarly()
	p.mu.Unlock()
	return p.sess.Next(ctx)
}

// Mark passes a marker made on the screen on, keeping it until the session
// is open.
func (p *PendingSession) Mark(text string) { p.MarkFrom("key", text) }

// MarkFrom passes on a marker from origin ("key", "mark", "job").
func (p *PendingSession) MarkFrom(origin, text string) {
	select {
	case <-p.ready:
		p.sess.MarkFrom(origin, text)
		return
	default:
	}
	p.mu.Lock()
	p.marks = append(p.marks, pendingMark{origin, text})
	p.mu.Unlock()
}

type pendingMark struct{ origin, text string }

// Close waits for the opening to finish (it cannot be interrupted inside
// the driver) and closes the session.
func (p *PendingSession) Close() error {
	<-p.ready
	return p.sess.Close()
}

// simulatedTimeout is how long a tick of a simulated machine on a fast
// clock waits for its probes, in real time (SessionConfig.Timeout).
const simulatedTimeout = 30 * time.Second
