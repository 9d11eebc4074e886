package demo

import (
	"context"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gputop-dev/gputop/probes"
)

// NewFrom starts the script later: the faults demo begun 120 s in has
// passed its Xid 48 (at 100 s), which its event set does not deliver, and
// gives its Xid 79 (at 130 s) 10 s after start.
func TestNewFromSkipsTheScriptsPastXids(t *testing.T) {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := probes.NewFastClock(start)
	node, err := NewFrom("faults", 1, clock, 120*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	set, ret := node.NVML().EventSetCreate()
	if ret != nvml.SUCCESS {
		t.Fatal(ret)
	}
	for i := range node.devices {
		if ret := node.devices[i].RegisterEvents(nvml.EventTypeXidCriticalError, set); ret != nvml.SUCCESS {
			t.Fatal(ret)
		}
	}
	if ev, ret := set.Wait(0); ret == nvml.SUCCESS {
		t.Fatalf("an Xid from before the start was delivered: %d", ev.EventData)
	}
	_ = clock.SleepUntil(context.Background(), start.Add(11*time.Second))
	ev, ret := set.Wait(100)
	if ret != nvml.SUCCESS || ev.EventData != 79 {
		t.Fatalf("10 s in: %v, Xid %d; want Xid 79", ret, ev.EventData)
	}
}
