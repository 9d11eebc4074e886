package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// webhookAlert is one alert of Alertmanager's webhook message.
type webhookAlert struct {
	Status      string            `json:"status"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
}

// webhook is the receiver Alertmanager notifies: it keeps every alert it
// was sent, with when.
type webhook struct {
	mu     sync.Mutex
	alerts []webhookAlert
	at     []time.Time
}

func (w *webhook) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	var msg struct {
		Alerts []webhookAlert `json:"alerts"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(rw, r.Body, 1<<20)).Decode(&msg); err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, a := range msg.Alerts {
		w.alerts = append(w.alerts, a)
		w.at = append(w.at, time.Now())
	}
}

// find returns the first alert received that match says is the one, and
// when it came.
func (w *webhook) find(match func(webhookAlert) bool) (webhookAlert, time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, a := range w.alerts {
		if match(a) {
			return a, w.at[i], true
		}
	}
	return webhookAlert{}, time.Time{}, false
}

// waitFor polls w for an alert until deadline.
func (w *webhook) waitFor(deadline time.Time, match func(webhookAlert) bool) (webhookAlert, time.Time, bool) {
	for {
		if a, at, ok := w.find(match); ok || time.Now().After(deadline) {
			return a, at, ok
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// The shipped rules with every for: shortened to 1s, so the test waits on
// the expressions, not on minutes: what is tested is the shipped file.
func shortRules(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	short := regexp.MustCompile(`(?m)^(\s+)for: \S+$`).ReplaceAll(data, []byte("${1}for: 1s"))
	if strings.Count(string(short), "for: 1s") < 15 {
		t.Fatalf("shortened %d for: lines", strings.Count(string(short), "for: 1s"))
	}
	path := filepath.Join(dir, "gputop.rules.yml")
	if err := os.WriteFile(path, short, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// needAlertmanager skips a test where Debian's prometheus-alertmanager is
// missing, and fails it under CI.
func needAlertmanager(t *testing.T) string {
	t.Helper()
	const bin = "/usr/bin/prometheus-alertmanager"
	if _, err := os.Stat(bin); err != nil {
		timelinetest.Unavailable(t, "prometheus-alertmanager is not installed (.ci/run installs Debian's package)")
	}
	return bin
}

// startStoppable starts a command in a process group of its own, its output
// in logPath; stop ends it with SIGTERM (and the test's end with SIGKILL).
func startStoppable(t *testing.T, logPath, name string, args ...string) (stop func()) {
	t.Helper()
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(name, args...)
	cmd.Env = envOf(t)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	wait := func(sig syscall.Signal) {
		once.Do(func() {
			_ = syscall.Kill(-cmd.Process.Pid, sig)
			done := make(chan struct{})
			go func() { _ = cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				<-done
			}
			logFile.Close()
		})
	}
	t.Cleanup(func() { wait(syscall.SIGKILL) })
	return func() { wait(syscall.SIGTERM) }
}

// The page at 3 a.m., end to end with the real engines (Debian's
// Prometheus and Alertmanager, everything on 127.0.0.1): Prometheus
// scrapes gputop serve --demo=faults and --demo=training every second and
// evaluates the shipped rules every second; the faults demo's Xid 48
// reaches the webhook the test runs as GPUXidFatal within the rule's for:
// plus 30 s, and resolves there once that serve stops; the training demo
// raises no alert at all.
func TestAlertsReachAlertmanagerAndResolve(t *testing.T) {
	// In parallel: mostly waiting on Prometheus, with ports and a runtime
	// directory of its own.
	t.Parallel()
	isolateOwnMarks(t)
	promBin := needPrometheus(t)
	amBin := needAlertmanager(t)
	bin := buildBinary(t)
	dir := t.TempDir()

	hook := &webhook{}
	receiver := httptest.NewServer(hook)
	defer receiver.Close()

	amAddr := freeLoopbackAddr(t)
	amConfig := fmt.Sprintf(`global:
  resolve_timeout: 5s
route:
  receiver: hook
  group_by: [alertname, job, gpu]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: hook
    webhook_configs:
      - url: %q
        send_resolved: true
`, receiver.URL)
	amConfigPath := filepath.Join(dir, "alertmanager.yml")
	if err := os.WriteFile(amConfigPath, []byte(amConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	// Its web address is on 127.0.0.1; an empty cluster address turns its
	// gossip listener off, so nothing of it listens beyond loopback.
	startGroup(t, filepath.Join(dir, "alertmanager.log"), amBin, "--config.file="+amConfigPath,
		"--storage.path="+filepath.Join(dir, "am"), "--web.listen-address="+amAddr, "--cluster.listen-address=")

	// The faults demo from 90 s into its script: its Xid 48 comes 10 s
	// after start (its GPU falls off the bus 30 s later).
	const xidAfter = 10 * time.Second
	faultsAddr, trainingAddr := freeLoopbackAddr(t), freeLoopbackAddr(t)
	served := time.Now()
	stopFaults := startStoppable(t, filepath.Join(dir, "faults.log"), bin, "serve", "--demo=faults", "--demo-from", "90s", "--listen", faultsAddr)
	startGroup(t, filepath.Join(dir, "training.log"), bin, "serve", "--demo=training", "--listen", trainingAddr)

	rules := shortRules(t, dir)
	promConfig := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 900ms
  evaluation_interval: 1s
rule_files: [%q]
alerting:
  alertmanagers: [{static_configs: [{targets: [%q]}]}]
scrape_configs:
  - job_name: faults
    static_configs: [{targets: [%q]}]
  - job_name: training
    static_configs: [{targets: [%q]}]
`, rules, amAddr, faultsAddr, trainingAddr)
	promAddr := startPrometheusWith(t, promBin, dir, promConfig, "--rules.alert.resend-delay=1s")

	logs := func() string {
		var b strings.Builder
		for _, name := range []string{"prometheus.log", "alertmanager.log", "faults.log"} {
			data, _ := os.ReadFile(filepath.Join(dir, name))
			fmt.Fprintf(&b, "--- %s:\n%s\n", name, tail(string(data), 1500))
		}
		return b.String()
	}
	isXid := func(status string) func(webhookAlert) bool {
		return func(a webhookAlert) bool {
			return a.Labels["alertname"] == "GPUXidFatal" && a.Labels["job"] == "faults" && a.Status == status
		}
	}

	// The rule's for: (1s) plus 30 s after the Xid, and not before it.
	fired, firedAt, ok := hook.waitFor(served.Add(xidAfter+time.Second+30*time.Second), isXid("firing"))
	if !ok {
		t.Fatalf("no GPUXidFatal firing at the webhook within 41 s of starting the faults demo; Prometheus has %v\n%s",
			promQuery(promAddr, `ALERTS`), logs())
	}
	t.Logf("GPUXidFatal reached the webhook %s after serve started (the Xid is due at %s): %s",
		firedAt.Sub(served).Round(100*time.Millisecond), xidAfter, fired.Annotations["summary"])
	if firedAt.Sub(served) < xidAfter-time.Second {
		t.Errorf("GPUXidFatal came %s after start, before the demo's Xid", firedAt.Sub(served))
	}
	if fired.Labels["severity"] != "critical" || fired.Labels["source"] != "dcgm" || fired.Labels["gpu"] == "" ||
		!strings.Contains(fired.Annotations["summary"], "GPU"+fired.Labels["gpu"]+": Xid 48") ||
		!strings.Contains(fired.Annotations["description"], "Double Bit ECC Error") ||
		!strings.HasSuffix(fired.Annotations["runbook_url"], "docs/alerts.md#gpuxidfatal") {
		t.Errorf("the alert as it came: %+v", fired)
	}

	// Stopped, its series go stale at the next scrape; Prometheus sends
	// the alert resolved, and Alertmanager tells the webhook.
	stopFaults()
	stopped := time.Now()
	if _, at, ok := hook.waitFor(stopped.Add(30*time.Second), isXid("resolved")); !ok {
		t.Errorf("GPUXidFatal not resolved at the webhook within 30 s of stopping serve; Prometheus has %v\n%s",
			promQuery(promAddr, `ALERTS`), logs())
	} else {
		t.Logf("resolved %s after serve stopped", at.Sub(stopped).Round(100*time.Millisecond))
	}

	// Read back: the page is in the postmortem's recording (while the
	// training demo runs on to 35 s, below).
	checkAlertImportedBack(t, bin, promAddr, served, filepath.Join(dir, "faults.gtr"))

	// The training demo, scraped all along, raised nothing: no alert at the
	// webhook, none pending or firing in Prometheus, after 35 s, past the
	// 20 s after which gputop's hints give a first reading.
	time.Sleep(time.Until(served.Add(35 * time.Second)))
	if n := len(promQuery(promAddr, `DCGM_FI_DEV_GPU_UTIL{job="training"}`)); n != 8 {
		t.Errorf("Prometheus has %d GPUs of the training demo, want 8", n)
	}
	if a, _, ok := hook.find(func(a webhookAlert) bool { return a.Labels["job"] == "training" }); ok {
		t.Errorf("the training demo raised %s: %v", a.Labels["alertname"], a)
	}
	if r := promQuery(promAddr, `ALERTS{job="training"}`); len(r) > 0 {
		t.Errorf("the training demo has alerts in Prometheus: %v", r)
	}
	var others []string
	hook.mu.Lock()
	for _, a := range hook.alerts {
		others = append(others, a.Labels["alertname"]+"/"+a.Status)
	}
	hook.mu.Unlock()
	t.Logf("the webhook received %v", others)
}

// checkAlertImportedBack imports the faults demo's stretch of Prometheus
// (since served) and finds GPUXidFatal's firing among the recording's
// markers, in the text report and the JSON one, at its time.
func checkAlertImportedBack(t *testing.T, bin, promAddr string, served time.Time, out string) {
	t.Helper()
	from := served.Add(-time.Second).UTC().Truncate(time.Second)
	began := time.Now()
	msg, err := exec.Command(bin, "import", "prometheus", "http://"+promAddr, "--from", from.Format(time.RFC3339),
		"--to", "now", "--step", "1s", "--match", `{job="faults"}`, "-o", out).CombinedOutput()
	if err != nil {
		t.Fatalf("import: %v\n%s", err, msg)
	}
	t.Logf("in %s: %s", time.Since(began).Round(10*time.Millisecond), msg)
	alerts := promQuery(promAddr, `ALERTS{alertname="GPUXidFatal",alertstate="firing",job="faults"}[5m]`)
	text, err := exec.Command(bin, "report", out).Output()
	if err != nil || !strings.Contains(string(text), "alert GPUXidFatal firing: Hostname=") {
		t.Fatalf("the report lists no GPUXidFatal marker (%v); Prometheus has %v\n%s", err, alerts, text)
	}
	data, err := exec.Command(bin, "report", "--format", "json", out).Output()
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		Markers []struct {
			At     float64 `json:"at_s"`
			Text   string  `json:"text"`
			Origin string  `json:"origin"`
		} `json:"markers"`
	}
	if err := json.Unmarshal(data, &report); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range report.Markers {
		if !strings.HasPrefix(m.Text, "alert GPUXidFatal firing: ") {
			continue
		}
		n++
		t.Logf("marker at %gs: %s (%s)", m.At, m.Text, m.Origin)
		// In the recording's time (from its first sample, a scrape after
		// serve started): before the 41 s the webhook waited.
		if m.Origin != "alert" || !strings.Contains(m.Text, " severity=critical") || !strings.Contains(m.Text, " job=faults") ||
			strings.Contains(m.Text, "UUID=") || m.At <= 0 || m.At > 41 {
			t.Errorf("the alert's marker: %+v", m)
		}
	}
	if n == 0 {
		t.Errorf("no GPUXidFatal marker in the JSON report's %+v", report.Markers)
	}
}
