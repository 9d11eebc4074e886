package main

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/probes"
)

// The screen's k offers what the Terminator can send, through its checks:
// gputop's own process is refused whatever the signal.
func TestKillerGoesThroughTheTerminator(t *testing.T) {
	k := killer{probes.NewTerminator()}
	sigs := k.Signals()
	if len(sigs) != 6 || sigs[0] != syscall.SIGTERM {
		t.Fatalf("k offers htop's six signals, SIGTERM first: %v", sigs)
	}
	for _, sig := range sigs {
		if err := k.Signal(os.Getpid(), time.Time{}, sig); err == nil || !strings.Contains(err.Error(), "gputop itself") {
			t.Errorf("signal %v to gputop itself: %v, want the Terminator's refusal", sig, err)
		}
	}
}
