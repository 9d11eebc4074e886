package remote

import (
	"encoding/gob"
	"fmt"
	"io"
	"math"
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
		ms := []timeline.Metric{{Key: timeline.Key{Name: "util", Device: timeline.GPUDevice(i)}, Value: 50}}
		for d := range 100 {
			ms = append(ms, timeline.Metric{Key: timeline.Key{Name: "x", Device: fmt.Sprintf("dev%d-%d", i, d)}, Value: 1})
		}
		s := &timeline.Sample{At: time.Now()}
		s.SetMetrics(ms)
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

// columnsFeed gives the samples of one list of keys the same columns, as
// the stream decoder does: the merge then places a host's next sample by
// its columns alone.
type columnsFeed struct {
	gobFeed
	last *timeline.Columns
}

func (f *columnsFeed) Next() (Event, error) {
	ev, err := f.gobFeed.Next()
	if s := ev.Sample; s != nil {
		if s.Columns.Same(f.last) {
			s.Columns = f.last
		}
		f.last = s.Columns
	}
	return ev, err
}

// TestEachTickIsMergedIntoTheLastRight checks the merge into the last
// tick's metrics, where each host's keys stand: a host whose keys change
// every other tick moves the host after it back and forth, and a host
// that sends every other second is a gap between, yet every tick lists
// each host's keys once, each with its own sample's value.
func TestEachTickIsMergedIntoTheLastRight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := newFakeNet()
		n.on("a", sending(1, func(i int) *timeline.Sample { return reading(1, float64(100+i)) }))
		n.on("b", sending(1, func(i int) *timeline.Sample {
			s := reading(1, float64(200+i))
			if i%2 == 1 {
				s.SetMetrics(append(s.Metrics(), timeline.Metric{Key: timeline.Key{Name: "extra", Device: "gpu0"}, Value: float64(200 + i)}))
			}
			return s
		}))
		n.on("c", func(c *fakeConn) {
			if !c.send(Event{Info: node(1)}) {
				return
			}
			for i := 0; ; i += 2 {
				if !c.send(Event{Sample: reading(1, float64(300+i))}) {
					return
				}
				select {
				case <-c.closed:
					return
				case <-time.After(2 * time.Second):
				}
			}
		})
		src := Open(Options{Hosts: []string{"a", "b", "c"}, Interval: time.Second, Dial: n.dial,
			Open: func(r io.Reader) (Feed, error) {
				return &columnsFeed{gobFeed: gobFeed{gob.NewDecoder(r)}}, nil
			}})
		defer src.Close()
		mergedKeys := []string{"gpu0/util", "host@a/cpu", "gpu1/util", "gpu1/extra", "host@b/cpu", "gpu2/util", "host@c/cpu"}
		gaps, extras := 0, 0
		for tick := range 12 {
			s := next(t, src)
			got := map[string]float64{}
			for _, m := range s.Metrics() {
				k := m.Key.String()
				if _, twice := got[k]; twice {
					t.Fatalf("tick %d lists %s twice: %v", tick, k, s.Metrics())
				}
				got[k] = m.Value
			}
			// Each host's keys, with the value its sample gave them all.
			for _, h := range []struct{ gpu, host string }{{"gpu0", "a"}, {"gpu1", "b"}, {"gpu2", "c"}} {
				util, ok := got[h.gpu+"/util"]
				cpu, cpuOK := got["host@"+h.host+"/cpu"]
				if !ok || !cpuOK {
					t.Fatalf("tick %d lacks %s's keys: %v", tick, h.host, s.Metrics())
				}
				if math.IsNaN(util) {
					gaps++
					if !math.IsNaN(cpu) {
						t.Errorf("tick %d: %s is a gap in util but its cpu reads %v", tick, h.host, cpu)
					}
					continue
				}
				if h.host == "b" {
					extra, has := got["gpu1/extra"]
					if odd := int(util)%2 == 1; has != odd || has && extra != util {
						t.Errorf("tick %d: b's sample %v has extra %v %v", tick, util, has, extra)
					}
					if has {
						extras++
					}
				}
			}
			for k := range got {
				if !slices.Contains(mergedKeys, k) {
					t.Errorf("tick %d lists %s, a key no host sent", tick, k)
				}
			}
		}
		if gaps == 0 || extras == 0 {
			t.Errorf("%d gaps and %d samples with the extra key in 12 ticks: want some of each", gaps, extras)
		}
	})
}
