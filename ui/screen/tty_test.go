package screen

import (
	"context"
	"os"
	"testing"
	"testing/synctest"
	"time"
)

// TestAwaitContWhenNothingStopped: where the kernel dropped the stop (an
// orphaned process group), no SIGCONT comes, and the screen comes back
// after stopGrace.
func TestAwaitContWhenNothingStopped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tt := &tty{ctx: context.Background(), woke: make(chan struct{}, 1)}
		start := time.Now()
		tt.awaitCont(start)
		if d := time.Since(start); d != stopGrace {
			t.Fatalf("came back after %v; want %v", d, stopGrace)
		}
	})
}

// TestAwaitContAfterAStop: the timer fires late when the process was
// stopped, and then SIGCONT, on its way, is waited for.
func TestAwaitContAfterAStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tt := &tty{ctx: context.Background(), woke: make(chan struct{}, 1), suspending: true}
		stoppedAt := time.Now().Add(-time.Minute) // stopped a minute ago
		go func() {
			time.Sleep(stopGrace + 100*time.Millisecond)
			tt.continued()
		}()
		start := time.Now()
		tt.awaitCont(stoppedAt)
		if d := time.Since(start); d != stopGrace+100*time.Millisecond {
			t.Fatalf("came back after %v; want it at SIGCONT", d)
		}
	})
}

// TestAwaitContEndsWithTheContext: a hang-up while stopped comes with
// SIGCONT, but the context alone must do.
func TestAwaitContEndsWithTheContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		tt := &tty{ctx: ctx, woke: make(chan struct{}, 1)}
		go func() {
			time.Sleep(10 * time.Millisecond)
			cancel()
		}()
		start := time.Now()
		tt.awaitCont(start)
		if d := time.Since(start); d != 10*time.Millisecond {
			t.Fatalf("came back %v after; want it at the cancel", d)
		}
	})
}

// With the mouse on, entering the screen asks the terminal for clicks and
// the wheel in SGR form, and leaving it (a suspend, the end) stops them
// first, so the shell never receives mouse reports.
func TestMouseReportingOnlyWhileShown(t *testing.T) {
	for _, mouse := range []bool{true, false} {
		f, err := os.CreateTemp(t.TempDir(), "out")
		if err != nil {
			t.Fatal(err)
		}
		tt := &tty{ctx: context.Background(), out: f, mouse: mouse, fg: func() bool { return true }}
		if err := tt.enter(); err != nil {
			t.Fatal(err)
		}
		if err := tt.leave(); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		want := enterScreen + leaveScreen
		if mouse {
			want = enterScreen + mouseOn + mouseOff + leaveScreen
		}
		if string(got) != want {
			t.Errorf("mouse %v: wrote %q, want %q", mouse, got, want)
		}
	}
}
