package main

import (
	"log"
	"time"

	"github.com/gputop-dev/gputop/probes/marks"
	"github.com/gputop-dev/gputop/probes/remote"
	"github.com/gputop-dev/gputop/ui"
	"github.com/gputop-dev/gputop/ui/config"
)

// hostsFlags are the live view's flags for several hosts.
type hostsFlags struct {
	list, sshCommand string
}

// liveOptions are the live view's flags that --hosts shares.
type liveOptions struct {
	interval     time.Duration
	record       string
	force, ascii bool
	demo         string
	settings     config.Settings // the settings file's
	budget       int             // the screen's history's bytes (--memory)
}

// checkHosts reads --hosts and --ssh-command before anything starts: a bad
// list or command is one line and exit 2.
func (h hostsFlags) check(o liveOptions) ([]string, remote.Transport, error) {
	var t remote.Transport
	hosts, err := remote.ParseHosts(h.list)
	if err != nil {
		return nil, t, usageError{"--hosts: " + err.Error()}
	}
	if o.demo != "" {
		return nil, t, usageError{"--demo and --hosts do not go together (docs/hosts.md says how to try it)"}
	}
	if h.sshCommand != "" {
		if t.Command, err = remote.SplitCommand(h.sshCommand); err != nil {
			return nil, t, usageError{"--ssh-command: " + err.Error()}
		}
	}
	return hosts, t, nil
}

// liveHosts is `gputop --hosts LIST`: one screen, and one recording, of
// every host's `gputop stream`, run through ssh (or --ssh-command).
func liveHosts(e *env, hosts []string, t remote.Transport, o liveOptions) error {
	ctx, stopSignals := endOnSignal(e)
	defer stopSignals()
	opened := time.Now()
	src := remote.Open(remote.Options{Hosts: hosts, Interval: o.interval, Transport: t,
		Open: openHostStream, MarkLine: remote.MarkLine})
	defer src.Close()
	listener, warning := openHostsMarks(src)
	defer listener.Close()
	if warning != "" {
		log.Print(warning)
	}
	pipe := newPipeline(o.budget)
	defer paceCollector(func(live uint64) int { return hostsGCPercent(len(src.Info().GPUs), live) })()
	rec := pipe.recorder(src, nil, o.force, false)
	live := &liveRecording{rec: rec, next: o.record}
	if o.record != "" {
		if _, err := live.Start(); err != nil {
			return err
		}
	}
	log.Printf("gputop %s live, %d hosts, interval %v, first: %s", version, len(hosts), o.interval, t.String(hosts[0], o.interval))
	started := time.Now()
	uiErr := runUI(ctx, rec, ui.Options{ASCII: o.ascii, Recorder: live, Notice: warning, Settings: o.settings,
		Store:      newLiveStore(o.budget, live.recallOf()),
		HostStatus: src.Connections, Judge: pipe.judge})
	logWire(src, len(hosts), opened, time.Since(started))
	live.finish(e.stderr)
	return uiErr
}

// openHostsMarks makes `gputop mark` on this machine reach every host.
func openHostsMarks(src *remote.Source) (closer interface{ Close() error }, warning string) {
	l, warning, err := marks.Open(func(text string) { src.MarkFrom("mark", text) })
	if err != nil {
		return noListener{}, "markers from gputop mark will not arrive: " + err.Error()
	}
	return l, warning
}

// noListener stands for a marker socket that could not be opened.
type noListener struct{}

func (noListener) Close() error { return nil }

// logWire logs what the hosts' streams carried, and how soon the first
// sample came: docs/performance.md's figures for several hosts.
func logWire(src *remote.Source, hosts int, opened time.Time, took time.Duration) {
	settled, first := src.FirstSample()
	secs := took.Seconds()
	log.Printf("hosts: %d bytes from %d hosts in %.0fs: %.0f B/s a host; every host answered or failed %v after start, "+
		"the first sample %v after that", src.Received(), hosts, secs, float64(src.Received())/secs/float64(hosts),
		settled.Sub(opened).Round(time.Millisecond), first.Sub(settled).Round(time.Millisecond))
}
