package remote

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// owning describes n GPUs and sends a sample every second, with its GPU
// 0's owner, pod, on every third (a process-tier tick), starting at tick
// first: hosts read their owners on ticks of their own.
func owning(n int, pod string, first int) script {
	return func(c *fakeConn) {
		if !c.send(Event{Info: node(n)}) {
			return
		}
		for i := 0; ; i++ {
			s := reading(n, 50)
			if i%3 == first {
				s.Owners = []timeline.Owner{{GPU: 0, Pod: pod, Namespace: "ml"}}
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
