package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings"
)

// Every command that can serve /metrics refuses a bad --listen in one line:
// 2 for an address that is not one (malformed, or not this machine's), 1
// for a port that is taken.
func TestListenRefusesBadAddressesInOneLine(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	out := filepath.Join(t.TempDir(), "r.gtr")
	cases := []struct {
		addr string
		code int
		want string
		// malformed is refused before the live view looks for a terminal,
		// which a test has not; the others only after.
		malformed bool
	}{
		{"nonsense", exitUsage, "is not HOST:PORT", true},
		{"127.0.0.1:99999", exitUsage, "the port must be a number", true},
		{"[::1", exitUsage, "is not HOST:PORT", true},
		// TEST-NET-1 (RFC 5737): never an address of this machine.
		{"192.0.2.1:9400", exitUsage, "not an address of this machine", false},
		{"no-such-host.invalid:9400", exitUsage, "no host no-such-host.invalid", false},
		{taken.Addr().String(), exitError, "the port is in use", false},
	}
	for _, cmd := range [][]string{{"serve", "--demo"}, {"record", "--demo", "-o", out}, {"live", "--demo"}} {
		for _, tc := range cases {
			if cmd[0] == "live" && !tc.malformed {
				continue
			}
			te := newTestEnv()
			code := run(append(cmd, "--listen", tc.addr), &te.env)
			lines := strings.Split(strings.TrimSpace(te.err.String()), "\n")
			if code != tc.code || len(lines) != 1 || !strings.Contains(lines[0], tc.want) || !strings.Contains(lines[0], "--listen") {
				t.Errorf("%s --listen %s: exit %d, stderr %q; want exit %d and one line with %q", cmd[0], tc.addr, code, te.err.String(), tc.code, tc.want)
			}
		}
	}
}

// The live view and record serve nothing unless told to; with
// --web.config.file alone they say --listen is missing.
func TestListenIsOffByDefaultOutsideServe(t *testing.T) {
	for _, cmd := range []string{"live", "record"} {
		te := newTestEnv()
		if code := run([]string{cmd, "--help"}, &te.env); code != exitOK {
			t.Fatalf("%s --help: exit %d", cmd, code)
		}
		help := te.out.String()
		if !strings.Contains(help, "--listen ADDRESS") || strings.Contains(help, "(default 127.0.0.1:9400)") {
			t.Errorf("%s --help: --listen missing or on by default:\n%s", cmd, help)
		}
		te = newTestEnv()
		args := []string{cmd, "--demo", "--web.config.file", "web.yml"}
		if cmd == "record" {
			args = append(args, "-o", filepath.Join(t.TempDir(), "r.gtr"))
		}
		if code := run(args, &te.env); code != exitUsage || !strings.Contains(te.err.String(), "give --listen ADDRESS too") {
			t.Errorf("%s --web.config.file without --listen: exit %d, %q", cmd, code, te.err.String())
		}
	}
}

// gputop record --listen serves the samples it records, from its one
// sampler: every sample time a scrape saw is a sample in the file, and a
// marker sent to the session is in both.
func TestRecordListenServesTheRecordedSamples(t *testing.T) {
	isolateMarks(t)
	path := filepath.Join(t.TempDir(), "r.gtr")
	addr := freeLoopbackAddr(t)
	te := newTestEnv()
	done := te.start("record", "--demo", "-o", path, "--interval", "200ms", "--listen", addr)
	url := "http://" + addr + "/metrics"
	waitForMetrics(t, url, te)
	if code := run([]string{"mark", "epoch 2"}, &newTestEnv().env); code != exitOK {
		t.Fatalf("mark: exit %d", code)
	}
	seen := map[string]bool{}
	var marked string
	deadline := time.Now().Add(20 * time.Second)
	for (len(seen) < 5 || marked == "") && time.Now().Before(deadline) {
		body := waitForMetrics(t, url, te)
		if ts := seriesValue(body, "gputop_last_sample_timestamp_seconds"); ts != "" {
			seen[ts] = true
		}
		if strings.Contains(body, `gputop_last_marker_timestamp_seconds{text="epoch 2"}`) {
			marked = "yes"
		}
		time.Sleep(150 * time.Millisecond)
	}
	te.sigs <- syscall.SIGTERM
	if code := waitExit(t, done, te); code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, te.err.String())
	}
	if !strings.Contains(te.err.String(), "gputop record: /metrics on "+addr) {
		t.Errorf("stderr does not say where /metrics is:\n%s", te.err.String())
	}
	if marked == "" {
		t.Error("the marker never reached /metrics")
	}
	r, err := recordings.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	recorded := map[string]bool{}
	var markers []string
	for {
		s, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recorded[strconv.FormatFloat(float64(s.At.UnixNano())/1e9, 'g', -1, 64)] = true
		for _, m := range s.Markers {
			markers = append(markers, m.Text)
		}
	}
	if len(seen) < 5 {
		t.Fatalf("scrapes saw %d sample times, want 5", len(seen))
	}
	for ts := range seen {
		if !recorded[ts] {
			t.Errorf("scraped a sample at %s that the recording does not hold (of %d)", ts, len(recorded))
		}
	}
	if fmt.Sprint(markers) != "[epoch 2]" {
		t.Errorf("recorded markers %q", markers)
	}
}

// seriesValue is the value of the unlabelled series name in a text
// exposition, as written; "" if absent.
func seriesValue(body, name string) string {
	for l := range strings.Lines(body) {
		if v, ok := strings.CutPrefix(l, name+" "); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// The live view with --listen serves /metrics while the screen runs, and
// its footer says where until a key is pressed.
func TestLiveViewListens(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	addr := freeLoopbackAddr(t)
	term := newTerminal(t, 100, 30, fmt.Sprintf("XDG_RUNTIME_DIR=%s TMPDIR=%s %s --demo=imbalance --listen %s --log %s; sleep 60",
		dir, dir, bin, addr, filepath.Join(dir, "log")))
	term.waitFor("DEMO imbalance", "GPU7", "/metrics on "+addr)
	body := waitForMetrics(t, "http://"+addr+"/metrics", &testEnv{})
	if !strings.Contains(body, `gputop_info{`) || !strings.Contains(body, `scenario="imbalance"`) {
		t.Errorf("/metrics is not the live view's demo:\n%s", grepPrefix(body, "gputop_info"))
	}
	term.keys("q")
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			break // closed with the screen
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("/metrics still served after q")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func grepPrefix(text, prefix string) string {
	var out []string
	for l := range strings.Lines(text) {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}
