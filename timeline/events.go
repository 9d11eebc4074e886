package timeline

import (
	"slices"
	"sort"
	"time"
	"unsafe"
)

// Event is a stretch of ticks in which one probe (or one device of it) was
// not OK in the same way: "nvml gpu3 lost" from 12:03:04 to now, 41 ticks.
// The store keeps these instead of every tick's statuses, so that the status
// line at any cursor time is cheap and replay shows what live showed.
type Event struct {
	Since, Until time.Time
	Probe        string
	Device       string
	State        ProbeState
	Err          string
	Count        int
}

type statusKey struct{ probe, device string }

// maxEvents bounds the event log; the oldest go first.
const maxEvents = 4096

func (s *Store) addStatuses(smp *Sample) {
	for _, ps := range smp.Probes {
		k := statusKey{ps.Probe, ps.Device}
		i, isOpen := s.open[k]
		if ps.State == ProbeOK {
			if isOpen {
				delete(s.open, k)
			}
			continue
		}
		if isOpen {
			e := &s.events[i]
			if e.State == ps.State && e.Err == ps.Err {
				e.Until = smp.At
				e.Count++
				continue
			}
		}
		s.appendEvent(k, Event{Since: smp.At, Until: smp.At, Probe: ps.Probe, Device: ps.Device, State: ps.State, Err: ps.Err, Count: 1})
	}
}

func (s *Store) appendEvent(k statusKey, e Event) {
	if len(s.events) >= maxEvents {
		drop := len(s.events) / 4
		s.events = append(s.events[:0], s.events[drop:]...)
		for key, i := range s.open {
			if i < drop {
				delete(s.open, key)
			} else {
				s.open[key] = i - drop
			}
		}
	}
	s.open[k] = len(s.events)
	s.events = append(s.events, e)
}

// EventsAt lists the events current at t: begun at or before t and seen no
// longer than two intervals before it, newest first.
func (s *Store) EventsAt(t time.Time) []Event {
	hold := time.Duration(s.rawHold())
	var out []Event
	for i := len(s.events) - 1; i >= 0; i-- {
		e := s.events[i]
		if !e.Since.After(t) && !e.Until.Add(hold).Before(t) {
			out = append(out, e)
		}
	}
	return out
}

// Lost says whether a device was lost (fell off the bus) at or before t.
// A lost device stays lost.
func (s *Store) Lost(device string, t time.Time) bool {
	for i := range s.events {
		e := &s.events[i]
		if e.State == ProbeLost && e.Device == device && !e.Since.After(t) {
			return true
		}
	}
	return false
}

// AddMarker keeps a marker, in time order.
func (s *Store) AddMarker(m Marker) {
	i := sort.Search(len(s.markers), func(i int) bool { return s.markers[i].At.After(m.At) })
	s.markers = slices.Insert(s.markers, i, m)
}

// Markers returns every marker, in time order. The slice is the store's.
func (s *Store) Markers() []Marker { return s.markers }

// OwnersAt is who held each GPU at t (Sample.Owners): nil before any reading, empty for none.
func (s *Store) OwnersAt(t time.Time) []Owner { return s.owners.At(t.UnixNano()) }

// processList is a process list as the store keeps it: each process's
// figures, and by number what else it is (proclife.go). A day of lists
// of 32 processes every 5 s is 22 MB as Processes, 5 MB so.
type processList struct {
	at   int64
	refs []processRef
}

// maxProcessLists bounds the process history (a day at one list per 5 s).
const maxProcessLists = 17280

func (s *Store) addProcesses(t int64, procs []Process) {
	if len(s.processes) >= maxProcessLists {
		for _, l := range s.processes[:len(s.processes)/4] {
			s.procBytes -= l.bytes()
		}
		s.processes = append(s.processes[:0], s.processes[len(s.processes)/4:]...)
	}
	l := processList{at: t, refs: s.processRefs(procs)}
	s.processes = append(s.processes, l)
	s.procBytes += l.bytes()
	if s.procBudget > 0 && s.procBytes > s.procBudget {
		s.thinProcesses()
	}
}

// bytes is what a list holds: 64 hosts' 600 processes take 24 KB, a day
// of them every 5 s 0.4 GB.
func (l *processList) bytes() int {
	return cap(l.refs) * int(unsafe.Sizeof(processRef{}))
}

// thinProcesses keeps the process lists within the store's budget: the
// newest quarter stays whole, every other list of the rest goes, so that
// an old moment's table is one a little older, and the session's first
// lists still there. A process seen only in the lists that went is gone
// from its past.
func (s *Store) thinProcesses() {
	keep := len(s.processes) * 3 / 4
	w := 0
	for i, l := range s.processes[:keep] {
		if i%2 == 0 {
			s.processes[w] = l
			w++
		} else {
			s.procBytes -= l.bytes()
		}
	}
	w += copy(s.processes[w:], s.processes[keep:])
	clear(s.processes[w:])
	s.processes = s.processes[:w]
}

// ProcessesAt is the newest process list taken at or before t, and when.
// The list is the store's until it is asked for another.
func (s *Store) ProcessesAt(t time.Time) ([]Process, time.Time) {
	at := t.UnixNano()
	i := sort.Search(len(s.processes), func(i int) bool { return s.processes[i].at > at })
	if i == 0 {
		return nil, time.Time{}
	}
	l := &s.processes[i-1]
	// The screen asks for the same list several times a frame.
	if s.procsAt != l.at || s.procs == nil {
		s.procs = make([]Process, len(l.refs))
		for k := range l.refs {
			s.procs[k] = s.process(&l.refs[k])
		}
		s.procsAt = l.at
	}
	return s.procs, time.Unix(0, l.at)
}
