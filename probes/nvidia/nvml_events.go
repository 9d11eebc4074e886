package nvidia

import (
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/xid"
)

// The event functions, looked up before the first call like every function
// newer than the baseline (nvml.go): the _v2 wait is what go-nvml calls.
var eventSymbols = []string{
	"nvmlEventSetCreate",
	"nvmlDeviceGetSupportedEventTypes",
	"nvmlDeviceRegisterEvents",
	"nvmlEventSetWait_v2",
	"nvmlEventSetFree",
}

// xidWait is how long one EventSetWait blocks: the watcher sleeps in the
// driver, not in a polling loop, and wakes this often only to see whether
// it is to stop. Each wake costs gputop CPU (the Go runtime's threads wake
// with it): at 250 ms the watcher alone measured 0.07 % of a core, so it
// wakes once a second, as the sampler does.
//
// Close does not wait out a wait in the driver: it gives the watcher
// xidStopWait to be between waits, and otherwise leaves NVML initialised
// (no EventSetFree, no Shutdown under a wait in flight) for the process's
// exit to clean up, as it does for a hung Collect. A failed wait is tried
// again after xidRetryPause.
const (
	xidWait       = 1000 // ms
	xidStopWait   = 100 * time.Millisecond
	xidRetryPause = 250 * time.Millisecond
)

// eventTimer is an event set that knows when the event it last handed out
// happened: the demo's, on its simulated clock, which runs ahead of the
// watcher when it jumps (--fast). A driver's event comes as it happens and
// is timed on arrival.
type eventTimer interface {
	LastEventTime() (time.Time, bool)
}

// xidWatch is the goroutine waiting on NVML's event set for Xid errors,
// or, polled (PollXid), the set DrainXid empties and where its events go.
type xidWatch struct {
	set  nvml.EventSet
	stop chan struct{}
	done chan struct{}
	mark func(timeline.Marker) // polled only
}

// WatchXid starts a goroutine that waits on NVML's event set for the Xid
// (critical error) events of every GPU that supports them and hands each to
// mark, timed as it arrives: "GPU3 Xid 79: GPU has fallen off the bus"
// (timeline.XidOrigin, xid.MarkerText), and gpu.xid on the GPU's next
// reading. Close stops it; a second call does nothing. A driver without the
// event functions, or GPUs that support none, leave it off, said in Checks.
func (n *NVML) WatchXid(mark func(timeline.Marker)) { n.openXid(mark, false) }

// PollXid is WatchXid without the goroutine, for a simulated machine on a
// clock that jumps: its sampler hands the Xids to mark at each tick (DrainXid).
func (n *NVML) PollXid(mark func(timeline.Marker)) { n.openXid(mark, true) }

// DrainXid hands every Xid the event set holds to PollXid's mark, waiting
// for none. It does nothing for a watcher's set, or after Close.
func (n *NVML) DrainXid() {
	n.watchMu.Lock()
	defer n.watchMu.Unlock() // stopXid frees the set only after this
	w := n.watch
	for w != nil && w.mark != nil {
		data, ret := w.set.Wait(0)
		if ret != nvml.SUCCESS {
			return
		}
		n.xidEvent(w, data, w.mark)
	}
}

func (n *NVML) openXid(mark func(timeline.Marker), poll bool) {
	n.life.RLock()
	defer n.life.RUnlock()
	n.watchMu.Lock()
	defer n.watchMu.Unlock()
	if n.closed.Load() || n.watchTried {
		return
	}
	n.watchTried = true
	ext := n.lib.Extensions()
	for _, s := range eventSymbols {
		if ext.LookupSymbol(s) != nil {
			n.note("Xid events: off, the driver lacks %s", s)
			return
		}
	}
	set, ret := n.lib.EventSetCreate()
	if ret != nvml.SUCCESS {
		n.note("Xid events: off, nvmlEventSetCreate: %s", returnText(ret))
		return
	}
	registered := 0
	for _, g := range n.gpus {
		if g.lost.Load() {
			continue
		}
		if g.registerXid(set) {
			registered++
		}
	}
	if registered == 0 {
		if ret := set.Free(); ret != nvml.SUCCESS {
			n.note("Xid events: nvmlEventSetFree: %s", returnText(ret))
		}
		n.note("Xid events: off, no GPU supports them")
		return
	}
	n.note("Xid events: watched on %d of %d GPUs", registered, len(n.gpus))
	w := &xidWatch{set: set, stop: make(chan struct{}), done: make(chan struct{})}
	n.watch = w
	if poll {
		w.mark = mark
		close(w.done)
		return
	}
	go n.waitXid(w, mark)
}

// registerXid asks the driver to report this GPU's Xids to set.
func (g *gpuProbe) registerXid(set nvml.EventSet) bool {
	types, ret := g.dev.GetSupportedEventTypes()
	switch classify(ret) {
	case outcomeLost:
		g.markLost("GetSupportedEventTypes")
		return false
	case outcomeOK:
	default:
		g.n.note("%s: Xid events: %s", g.device, returnText(ret))
		return false
	}
	if types&nvml.EventTypeXidCriticalError == 0 {
		g.n.note("%s: Xid events: not supported by the device", g.device)
		return false
	}
	ret = g.dev.RegisterEvents(nvml.EventTypeXidCriticalError, set)
	switch classify(ret) {
	case outcomeOK:
		g.xidWatched.Store(true)
		return true
	case outcomeLost:
		g.markLost("RegisterEvents")
	default:
		g.n.note("%s: Xid events: RegisterEvents: %s", g.device, returnText(ret))
	}
	return false
}

// waitXid is the watcher's loop: it blocks in EventSetWait until an event
// comes or xidWait passes. An error other than the timeout (the driver
// refusing the wait) is retried after a pause, so that it never spins; ten
// in a row end the watch.
func (n *NVML) waitXid(w *xidWatch, mark func(timeline.Marker)) {
	defer close(w.done)
	failures := 0
	for {
		select {
		case <-w.stop:
			return
		default:
		}
		data, ret := w.set.Wait(xidWait)
		switch ret {
		case nvml.SUCCESS:
			failures = 0
			n.xidEvent(w, data, mark)
		case nvml.ERROR_TIMEOUT:
			failures = 0
		default:
			failures++
			if failures >= 10 {
				n.note("Xid events: stopped, nvmlEventSetWait: %s", returnText(ret))
				return
			}
			select {
			case <-w.stop:
				return
			case <-time.After(xidRetryPause):
			}
		}
	}
}

// xidEvent turns one event into a marker and the GPU's gpu.xid.
func (n *NVML) xidEvent(w *xidWatch, data nvml.EventData, mark func(timeline.Marker)) {
	if data.EventType&nvml.EventTypeXidCriticalError == 0 {
		return
	}
	for _, g := range n.gpus {
		if g.dev == data.Device {
			code := int(data.EventData)
			g.xid.Store(int64(code))
			g.healthNow.Store(true) // an Xid may come with ECC errors or a link down
			at := n.clock.Now()
			if et, ok := w.set.(eventTimer); ok {
				if t, ok := et.LastEventTime(); ok {
					at = t
				}
			}
			mark(timeline.Marker{At: at, Text: xid.MarkerText(g.info.Index, code), Origin: timeline.XidOrigin})
			return
		}
	}
	n.note("Xid %d on a device that is not monitored", data.EventData)
}

// stopXid ends the watcher and frees its event set. It waits at most
// xidStopWait for the watcher to be out of the driver; false if it is not
// (waiting for an event, or a hung driver), and then the set and NVML are
// left alone.
func (n *NVML) stopXid() (ok bool, problem string) {
	n.watchMu.Lock()
	w, hung := n.watch, n.xidHung
	n.watch = nil
	n.watchMu.Unlock()
	if hung {
		return false, ""
	}
	if w == nil {
		return true, ""
	}
	close(w.stop)
	select {
	case <-w.done:
	case <-time.After(xidStopWait):
		n.watchMu.Lock()
		n.xidHung = true
		n.watchMu.Unlock()
		return false, ""
	}
	if ret := w.set.Free(); ret != nvml.SUCCESS {
		return true, "nvmlEventSetFree: " + returnText(ret)
	}
	return true, ""
}
