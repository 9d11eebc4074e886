package remote

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// sending describes n GPUs and sends sample(i) every second until the
// connection closes.
func sending(n int, sample func(i int) *timeline.Sample) script {
	return func(c *fakeConn) {
		if !c.send(Event{Info: node(n)}) {
			return
		}
		for i := 0; ; i++ {
			if !c.send(Event{Sample: sample(i)}) {
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

// owning is a host of n GPUs whose GPU 0 is held by pod, read on every
// third tick from tick first: hosts read their owners on ticks of their
// own.
func owning(n int, pod string, first int) script {
	return sending(n, func(i int) *timeline.Sample {
		s := reading(n, 50)
		if i%3 == first {
			s.Owners = []timeline.Owner{{GPU: 0, Pod: pod, Namespace: "ml"}}
		}
		return s
	})
}

// TestOwnersOfEveryHostReachTheSession checks that the merge keeps who
// holds each host's GPUs, renumbered as the session numbers them, and
// that a tick where one host read its owners still carries the others'
// as they last read them: a host's list alone would make the others'
// GPUs look free.
func TestOwnersOfEveryHostReachTheSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := newFakeNet()
		n.on("a", owning(2, "pod-a", 0))
		n.on("b", owning(2, "pod-b", 1))
		src := openFake(n, "a", "b")
		defer src.Close()
		var lists [][]timeline.Owner
		for range 8 {
			if s := next(t, src); s.Owners != nil {
				lists = append(lists, s.Owners)
			}
		}
		if len(lists) < 3 {
			t.Fatalf("owners on %d ticks of 8, want most of them", len(lists))
		}
		last := lists[len(lists)-1]
		want := []timeline.Owner{{GPU: 0, Pod: "pod-a", Namespace: "ml"}, {GPU: 2, Pod: "pod-b", Namespace: "ml"}}
		if !slices.Equal(last, want) {
			t.Errorf("the session's owners %+v, want %+v", last, want)
		}
		for _, l := range lists[1:] {
			if len(l) != 2 {
				t.Errorf("a tick lists %+v: one host's owners dropped", l)
			}
		}
	})
}

// renumbering is a host that names a new GPU and a hundred new devices
// every tick, as a broken or hostile host might.
func renumbering() script {
	return sending(1, func(i int) *timeline.Sample {
		s := &timeline.Sample{At: time.Now()}
		s.Metrics = append(s.Metrics, timeline.Metric{Key: timeline.Key{Name: "util", Device: timeline.GPUDevice(i)}, Value: 50})
		for d := range 100 {
			s.Metrics = append(s.Metrics, timeline.Metric{Key: timeline.Key{Name: "x", Device: fmt.Sprintf("dev%d-%d", i, d)}, Value: 1})
		}
		return s
	})
}

// TestAHostNamingEverMoreDevicesIsBounded checks that a host naming a new
// GPU and a hundred new devices every tick stops growing the session at
// its bounds, with a note, while the healthy host beside it goes on.
func TestAHostNamingEverMoreDevicesIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := newFakeNet()
		n.on("good", streaming(2, 90, 0))
		n.on("bad", renumbering())
		src := openFake(n, "good", "bad")
		defer src.Close()
		var last timeline.Sample
		for range maxHostGPUs + 50 {
			last = next(t, src)
		}
		info := src.Info()
		if bad := len(info.GPUsOf("bad")); bad > maxHostGPUs {
			t.Errorf("the bad host has %d GPUs in the session, more than %d", bad, maxHostGPUs)
		}
		if got := len(src.perHost[1].devices); got > maxHostDevices {
			t.Errorf("%d devices of the bad host kept, more than %d", got, maxHostDevices)
		}
		if !slices.ContainsFunc(info.Hosts[1].Notes, func(s string) bool { return strings.Contains(s, "left out") }) {
			t.Errorf("no note on the bad host: %q", info.Hosts[1].Notes)
		}
		if !slices.Contains(devices(last), "gpu0") || len(info.GPUsOf("good")) != 2 {
			t.Errorf("the good host's GPUs are gone: %q, %v", devices(last), info.GPUsOf("good"))
		}
	})
}
