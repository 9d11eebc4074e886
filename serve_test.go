package main

import (
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestServeRefusesABadListenAddressInOneLine(t *testing.T) {
	isolateMarks(t)
	for _, addr := range []string{"nonsense", "127.0.0.1:99999", "127.0.0.1:http-alt", "[::1"} {
		te := newTestEnv()
		if code := run([]string{"serve", "--demo", "--listen", addr}, &te.env); code != exitUsage {
			t.Errorf("--listen %s: exit %d, want %d", addr, code, exitUsage)
		}
		if lines := strings.Split(strings.TrimSpace(te.err.String()), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "--listen") {
			t.Errorf("--listen %s: stderr %q, want one line about --listen", addr, te.err.String())
		}
	}
}

// Nobody else on the network sees the GPUs unless the user says so.
func TestServeListensOnLoopbackByDefault(t *testing.T) {
	te := newTestEnv()
	if code := run([]string{"serve", "--help"}, &te.env); code != exitOK {
		t.Fatalf("--help: exit %d", code)
	}
	if !strings.Contains(te.out.String(), "(default 127.0.0.1:9400)") {
		t.Errorf("--help does not say the default is 127.0.0.1:9400:\n%s", te.out.String())
	}
	host, _, err := net.SplitHostPort(defaultListen)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		t.Errorf("default listen address %s is not loopback", defaultListen)
	}
	// Started without --listen, it answers on 127.0.0.1:9400, if that port
	// is free here.
	probe, err := net.Listen("tcp", defaultListen)
	if err != nil {
		t.Skipf("%s is taken here: %v", defaultListen, err)
	}
	probe.Close()
	te = newTestEnv()
	done := te.start("serve", "--demo")
	body := waitForMetrics(t, "http://"+defaultListen+"/metrics", te)
	if !strings.Contains(body, "DCGM_FI_DEV_GPU_UTIL{") {
		t.Errorf("no GPU utilisation in /metrics")
	}
	te.sigs <- syscall.SIGTERM
	if code := waitExit(t, done, te); code != exitOK {
		t.Errorf("exit %d after SIGTERM; stderr:\n%s", code, te.err.String())
	}
}

// serve -o records through the same Recorder as record: the file holds
// the samples served and the markers gputop mark sent.
func TestServeRecordsWithMarkers(t *testing.T) {
	isolateMarks(t)
	path := filepath.Join(t.TempDir(), "serve.gtr")
	te := newTestEnv()
	done := te.start("serve", "--demo", "--listen", "127.0.0.1:0", "--interval", "200ms", "-o", path)
	waitForSamples(t, path, 2)
	if code := run([]string{"mark", "warmup done"}, &newTestEnv().env); code != exitOK {
		t.Fatalf("mark: exit %d", code)
	}
	time.Sleep(600 * time.Millisecond) // a few samples, so the marker rides on one
	te.sigs <- syscall.SIGTERM
	if code := waitExit(t, done, te); code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, te.err.String())
	}
	samples, markers, _, err := readRecording(t, path)
	if err != nil || samples < 3 || len(markers) != 1 || markers[0] != "warmup done (mark)" {
		t.Errorf("recording: %d samples, markers %q, err %v", samples, markers, err)
	}
}

// waitForMetrics fetches url until it answers 200 with GPU series, for
// up to 20 s.
func waitForMetrics(t *testing.T, url string, te *testEnv) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url); err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && strings.Contains(string(body), "DCGM_FI_") {
				return string(body)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s never answered with GPU series; stderr:\n%s", url, te.err.String())
	return ""
}
