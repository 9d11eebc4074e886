package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// promAnswers is a stand-in for Prometheus that gives every query the same
// answer, with an HTTP status.
func promAnswers(t *testing.T, status int, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// closedLoopbackURL is an http:// address nobody listens on, for as long
// as the test runs (refusingPort).
func closedLoopbackURL(t *testing.T) string {
	t.Helper()
	return fmt.Sprintf("http://127.0.0.1:%d", refusingPort(t))
}

// refusingPort is a port on 127.0.0.1 that refuses connections for as long
// as the test runs: held by a socket bound but not listening. A port
// listened on and closed again could be taken at once by the next test
// server, which then answered where "connection refused" was due.
func refusingPort(t *testing.T) int {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return sa.(*syscall.SockaddrInet4).Port
}

const promTestdata = "recordings/importer/prom/testdata/prometheus/"

// Each bad input of import prometheus is one line and a non-zero exit, and
// leaves no file behind.
func TestImportPrometheusRefusesInOneLine(t *testing.T) {
	empty := `{"status":"success","data":{"resultType":"matrix","result":[]}}`
	badData, err := os.ReadFile(promTestdata + "error-bad-data.json")
	if err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(t.TempDir(), "broken.json")
	if err := os.WriteFile(broken, []byte(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":`), 0o644); err != nil {
		t.Fatal(err)
	}
	down := closedLoopbackURL(t)
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"Prometheus unreachable", []string{down, "--from", "-1h"}, exitError, "cannot reach Prometheus at " + down + ": connect: connection refused"},
		{"empty range", []string{down, "--from", "now", "--to", "-1h"}, exitUsage, "the range is empty: --from"},
		{"range of nothing", []string{down, "--from", "2026-11-24T08:00:00Z", "--to", "2026-11-24T08:00:00Z"}, exitUsage, "the range is empty"},
		{"selector matches nothing", []string{promAnswers(t, 200, empty), "--from", "-1h", "--match", `{job="none"}`}, exitError, `no GPU series match {job="none"} from `},
		{"no GPU series at all", []string{promAnswers(t, 200, empty), "--from", "-1h"}, exitError, "no GPU series from "},
		{"bad JSON", []string{promAnswers(t, 200, `{"status":"success","data":`), "--from", "-1h"}, exitError, "not Prometheus' JSON"},
		{"Prometheus' error", []string{promAnswers(t, 400, string(badData)), "--from", "-1h"}, exitError, "Prometheus says bad_data: 1:22: parse error: unexpected end of input inside braces"},
		{"not Prometheus", []string{promAnswers(t, 404, "404 page not found"), "--from", "-1h"}, exitError, "answers 404 Not Found to /api/v1/query_range: is it Prometheus' address?"},
		{"a saved error", []string{promTestdata + "error-too-many-points.json"}, exitError, "Prometheus says bad_data: exceeded maximum resolution of 11,000 points"},
		{"a broken file", []string{broken}, exitError, "broken.json: not Prometheus' JSON"},
		{"a missing file", []string{"nothere.json"}, exitError, "gputop import: nothere.json: no such file or directory"},
		{"no --from", []string{down}, exitUsage, "--from TIME is required"},
		{"bad --from", []string{down, "--from", "yesterday"}, exitUsage, `--from "yesterday" is not a time such as 2026-11-24T08:00:00Z, -2h or now`},
		{"bad --step", []string{down, "--from", "-1h", "--step", "0s"}, exitUsage, "--step 0s: must be 1ms or more"},
		{"a series as --match", []string{down, "--from", "-1h", "--match", `up{job="x"}`}, exitUsage, "give only label matchers"},
		{"--from with a file", []string{promTestdata + "gap-target-down.json", "--from", "-1h"}, exitUsage, "--from is for a Prometheus URL"},
		{"two sources", []string{"a.json", "b.json"}, exitUsage, "give one Prometheus URL"},
	} {
		out := filepath.Join(t.TempDir(), "x.gtr")
		te := newTestEnv()
		code := run(append(append([]string{"import", "prometheus"}, c.args...), "-o", out), &te.env)
		lines := strings.Split(strings.TrimSpace(te.err.String()), "\n")
		if code != c.code || len(lines) != 1 || !strings.Contains(lines[0], c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and one line with %q", c.name, code, te.err.String(), c.code, c.want)
		}
		if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
			t.Errorf("%s: left %d files behind", c.name, len(entries))
		}
	}
}

// A host that stopped answering for a while is a gap in the recording: its
// GPUs' metrics are absent from those samples, never zeros.
func TestImportPrometheusFileKeepsGaps(t *testing.T) {
	out := filepath.Join(t.TempDir(), "gap.gtr")
	te := newTestEnv()
	if code := run([]string{"import", "prometheus", promTestdata + "gap-target-down.json", "-o", out}, &te.env); code != exitOK {
		t.Fatalf("exit %d: %s", code, te.err.String())
	}
	if !strings.HasPrefix(te.err.String(), "imported 26 samples of 2 GPUs on 2 hosts over 25s from gap-target-down.json (prometheus) into ") {
		t.Errorf("stderr %q", te.err.String())
	}
	r, err := recordings.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	info := r.Info()
	if info.Kind != timeline.Imported || len(info.Hosts) != 2 || info.Hosts[1].Name != "node-b" || info.GPUs[1].Host != "node-b" {
		t.Fatalf("info %+v", info)
	}
	var missing []int
	for i := 0; ; i++ {
		s, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		has := false
		for _, m := range s.Metrics() {
			if m.Key.Device == "gpu1" {
				has = true
				if m.Value == 0 {
					t.Errorf("sample %d: node-b's %s is 0", i, m.Key.Name)
				}
			}
		}
		if !has {
			missing = append(missing, i)
		}
	}
	if want := []int{11, 12, 13, 14, 15, 16, 17, 18}; !equalInts(missing, want) {
		t.Errorf("node-b's GPU is missing from samples %v, want %v (it was down from +11s to +18s)", missing, want)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestParsePromTime(t *testing.T) {
	now := time.Date(2026, 11, 25, 6, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		in   string
		want time.Time
		bad  bool
	}{
		{in: "now", want: now},
		{in: "-2h", want: now.Add(-2 * time.Hour)},
		{in: "-30m", want: now.Add(-30 * time.Minute)},
		{in: "-1d", want: now.Add(-24 * time.Hour)},
		{in: "-1.5d", want: now.Add(-36 * time.Hour)},
		{in: "-1h30m", want: now.Add(-90 * time.Minute)},
		{in: "2026-11-24T08:00:00Z", want: time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)},
		{in: "2026-11-24T09:00:00+01:00", want: time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)},
		{in: "1795507200", want: time.Unix(1795507200, 0)},
		{in: "1795507200.5", want: time.UnixMilli(1795507200500)},
		{in: "+2h", bad: true},
		{in: "-2x", bad: true},
		{in: "--2h", bad: true},
		{in: "-d", bad: true},
		{in: "2026-11-24", bad: true},
		{in: "", bad: true},
		{in: "yesterday", bad: true},
	} {
		got, err := parsePromTime("--from", c.in, now)
		if c.bad != (err != nil) || (!c.bad && !got.Equal(c.want)) {
			t.Errorf("%q: %v, %v; want %v (bad %v)", c.in, got, err, c.want, c.bad)
		}
	}
}

// A named pipe without a writer given to either import is refused at
// once in one line, as a directory is; before, the open waited forever.
func TestImportRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "log.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		timelinetest.Unavailable(t, "no named pipes here: %v", err)
	}
	for _, args := range [][]string{
		{"import", fifo},
		{"import", "prometheus", fifo},
		{"import", dir},
	} {
		out := filepath.Join(t.TempDir(), "x.gtr")
		te := newTestEnv()
		done := make(chan int, 1)
		go func() { done <- run(append(args, "-o", out), &te.env) }()
		select {
		case code := <-done:
			lines := strings.Split(strings.TrimSpace(te.err.String()), "\n")
			if code != exitError || len(lines) != 1 || !strings.Contains(lines[0], "not a regular file: gputop imports saved files") {
				t.Errorf("gputop %v: exit %d, stderr %q", args, code, te.err.String())
			}
		case <-time.After(10 * time.Second): // a hang guard, not a timing
			t.Fatalf("gputop %v blocked", args)
		}
		if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
			t.Errorf("gputop %v left %d files behind", args, len(entries))
		}
	}
}

// reportHints is what `gputop report --format json` says of a recording's
// hints: each hint's id, severity and GPUs.
type reportHint struct {
	ID       string `json:"id"`
	Severity string `json:"severity"`
	GPUs     []int  `json:"gpus"`
}

func reportHintsOf(t *testing.T, path string) []reportHint {
	t.Helper()
	te := newTestEnv()
	if code := run([]string{"report", "--format", "json", path}, &te.env); code != exitOK {
		t.Fatalf("report %s: exit %d: %s", path, code, te.err.String())
	}
	var rep struct {
		Hints []reportHint `json:"hints"`
	}
	if err := json.Unmarshal([]byte(te.out.String()), &rep); err != nil {
		t.Fatal(err)
	}
	return rep.Hints
}

// The faults demo's failure survives a Prometheus history: the real
// Prometheus' saved answers of gputop serve --demo=faults, imported, give
// the report the live view's CRITICAL gpu-error on GPU1 (Xid 48, then Xid
// 79 and lost) and link-degraded on GPU6 (PCIe x8) and GPU7 (NVLink 16
// down), where the import used to give HINTS none.
func TestImportPrometheusFaultsKeepTheFailure(t *testing.T) {
	out := filepath.Join(t.TempDir(), "faults.gtr")
	te := newTestEnv()
	if code := run([]string{"import", "prometheus", promTestdata + "faults-one-host.json", "-o", out}, &te.env); code != exitOK {
		t.Fatalf("exit %d: %s", code, te.err.String())
	}
	hints := reportHintsOf(t, out)
	want := []reportHint{{"gpu-error", "critical", []int{1}}, {"link-degraded", "warning", []int{6, 7}}}
	if fmt.Sprint(hints) != fmt.Sprint(want) {
		t.Errorf("hints %+v, want %+v", hints, want)
	}
	te = newTestEnv()
	run([]string{"report", out}, &te.env)
	text := te.out.String()
	for _, s := range []string{"lost at 0:00:", "GPU1 Xid 79: GPU has fallen off the bus (xid)", "GPU7 NVLink 16 down"} {
		if !strings.Contains(text, s) {
			t.Errorf("the report lacks %q:\n%s", s, text)
		}
	}
}
