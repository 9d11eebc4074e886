package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/timeline"
)

// absurdRecording writes a recording of one GPU that reads 1e19 W at full
// utilisation, -50 % and 1e9 %, as a broken exporter or a hostile host
// might stream it.
func absurdRecording(t *testing.T, path string) {
	t.Helper()
	start := time.Now().Add(-time.Minute).Truncate(time.Second)
	info := timeline.SourceInfo{Kind: timeline.Live, Host: "absurd", Interval: time.Second,
		GPUs: []timeline.GPUInfo{{Index: 0, Name: "NVIDIA H100 80GB HBM3", MemTotal: 80 << 30, PowerLimit: 700}}}
	w, err := recordings.Create(path, recordings.Header{Version: version, Info: info, Start: start}, true)
	if err != nil {
		t.Fatal(err)
	}
	utils := []float64{100, -50, 1e9, math.Inf(1)}
	for i := range 60 {
		s := timeline.Sample{At: start.Add(time.Duration(i) * time.Second)}.WithMetrics([]timeline.Metric{
			{Key: timeline.Key{Name: timeline.GPUUtil, Device: "gpu0"}, Value: utils[i%len(utils)]},
			{Key: timeline.Key{Name: timeline.GPUPower, Device: "gpu0"}, Value: 1e19},
			{Key: timeline.Key{Name: timeline.GPUMemUsed, Device: "gpu0"}, Value: -1e12},
		})
		if err := w.Write(&s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// gputop --hosts with a host that streams a decompression bomb and one that
// streams absurd values, beside a healthy one: the healthy host stays on
// screen with its GPUs, the others say what is wrong, q quits at once, and
// no process is left behind.
func TestHostileHostsBesideAHealthyOne(t *testing.T) {
	bin := buildBinary(t)
	isolateMarks(t)
	dir := t.TempDir()
	bomb, err := filepath.Abs(filepath.Join("testdata", "hostile", "bomb-no-check.gtr"))
	if err != nil {
		t.Fatal(err)
	}
	absurd := filepath.Join(dir, "absurd.gtr")
	absurdRecording(t, absurd)
	// The marker ends every process the hosts start, so that what is
	// left of them can be found ("sleep 100077" is still a sleep).
	marker := fmt.Sprint(os.Getpid() % 100000)
	// The healthy host's gputop runs by a name of this test's own, so
	// that only its own processes are looked for when it ends (another
	// gputop --demo=training on the machine is not this test's).
	good := filepath.Join(dir, "gputop-good-host")
	if err := os.Symlink(bin, good); err != nil {
		t.Fatal(err)
	}
	transport := filepath.Join(dir, "fake-ssh")
	script := fmt.Sprintf(`#!/bin/sh
host=$1; shift; shift # the host, then "gputop"
case $host in
good) exec %s "$@" --demo=training ;;
bomb) cat %s; exec sleep 1000%s ;;
absurd) cat %s; exec sleep 1000%s ;;
esac
`, good, bomb, marker, absurd, marker)
	if err := os.WriteFile(transport, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	term := newTerminal(t, 120, 40, fmt.Sprintf("%s --hosts good,bomb,absurd --ssh-command %s --log %s 2>%s; echo EXIT=$? >> %s; sleep 60",
		bin, transport, filepath.Join(dir, "log"), out, out))
	s := term.waitFor("good", "bomb", "absurd", "GPU7")
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(s, "damaged") && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		s = term.screen()
	}
	if !strings.Contains(s, "bomb") || !strings.Contains(s, "damaged") {
		t.Fatalf("the bomb's host does not say it is damaged:\n%s", s)
	}
	for _, absurdReading := range []string{"1e+19", "10000000000000000000", "-50%"} {
		if strings.Contains(s, absurdReading) {
			t.Errorf("an absurd reading (%s) is on screen:\n%s", absurdReading, s)
		}
	}
	quit := time.Now()
	term.keys("q")
	got := waitForFile(t, out, "EXIT")
	took := time.Since(quit)
	t.Logf("q to exit: %v", took)
	if strings.TrimSpace(string(got)) != "EXIT=0" {
		t.Errorf("want nothing on stderr and exit 0, got:\n%s", got)
	}
	if took > 5*time.Second {
		t.Errorf("q took %v to quit, with a hostile host beside the others", took)
	}
	gone(t, "1000"+marker)
	gone(t, good)
}
