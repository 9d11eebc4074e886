package remote

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"ssh", []string{"ssh"}},
		{"ssh -F ./cfg -J bastion", []string{"ssh", "-F", "./cfg", "-J", "bastion"}},
		{"kubectl exec -i -n 'my ns' --", []string{"kubectl", "exec", "-i", "-n", "my ns", "--"}},
		{`sh -c "exec \"\$0\" stream"`, []string{"sh", "-c", `exec "$0" stream`}},
		{`a\ b c''d ""`, []string{"a b", "cd", ""}},
		{"  tabs\tand\nnewlines ", []string{"tabs", "and", "newlines"}},
		{`"a\nb"`, []string{`a\nb`}},
	}
	for _, tt := range tests {
		got, err := SplitCommand(tt.in)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "   ", "ssh 'x", `ssh "x`, `ssh \`} {
		if _, err := SplitCommand(bad); err == nil {
			t.Errorf("SplitCommand(%q) takes it", bad)
		}
	}
}

func FuzzSplitCommand(f *testing.F) {
	for _, s := range []string{"ssh -F cfg", `kubectl exec -i "a b" --`, `a\ b'c'"d\"e"`, `'`, `"\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := SplitCommand(s)
		if err == nil && len(words) == 0 {
			t.Fatalf("%q: no words, no error", s)
		}
	})
}

func TestTransportCommandLine(t *testing.T) {
	ssh := Transport{}.argv("node3", time.Second)
	want := append(append([]string{"ssh"}, SSHOptions...), "node3", "gputop", "stream", "--interval", "1s")
	if !slices.Equal(ssh, want) {
		t.Errorf("ssh: %q", ssh)
	}
	k := Transport{Command: []string{"kubectl", "exec", "-i"}}.argv("pod-1", 500*time.Millisecond)
	if !slices.Equal(k, []string{"kubectl", "exec", "-i", "pod-1", "gputop", "stream", "--interval", "500ms"}) {
		t.Errorf("kubectl: %q", k)
	}
	f := Transport{Command: []string{"/usr/bin/ssh", "-F", "c.conf"}}.argv("n1", time.Second)
	want = append(append([]string{"/usr/bin/ssh"}, SSHOptions...), "-F", "c.conf", "n1", "gputop", "stream", "--interval", "1s")
	if !slices.Equal(f, want) {
		t.Errorf("ssh -F: %q", f)
	}
}

func TestTailKeepsTheEnd(t *testing.T) {
	var tl tail
	for i := range 1000 {
		tl.Write([]byte("line " + strconv.Itoa(i) + "\n"))
	}
	tl.Write([]byte(strings.Repeat("x", 5000) + "\nlast words\n"))
	s := tl.String()
	if len(s) != stderrKeep || lastLine(s) != "last words" {
		t.Errorf("kept %d bytes ending %q", len(s), lastLine(s))
	}
}

func TestAProcessSaysHowItEnded(t *testing.T) {
	p, err := startProcess([]string{"sh", "-c", "echo 'sh: 1: gputop: not found' >&2; exit 127"})
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, p.Stdout())
	var exit *ExitError
	if err := p.Close(); !errors.As(err, &exit) || exit.Code != 127 {
		t.Errorf("exit %v", err)
	}
	if lastLine(p.Stderr()) != "sh: 1: gputop: not found" {
		t.Errorf("stderr %q", p.Stderr())
	}
	if _, err := startProcess([]string{"no-such-transport-xyz"}); err == nil || err.Error() != "no-such-transport-xyz: not found" {
		t.Errorf("missing transport: %v", err)
	}
}

// A stream's whole process group ends with it: a wrapper's children, and a
// child that ignores SIGTERM, are killed and nothing is left running.
func TestCloseKillsTheWholeGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child")
	script := "trap '' TERM; sleep 300 & echo $! > " + pidFile + "; echo ready; while :; do sleep 1; done"
	p, err := startProcess([]string{"sh", "-c", script})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 6)
	if _, err := io.ReadFull(p.Stdout(), buf); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	start := time.Now()
	err = p.Close()
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v", d)
	}
	var exit *ExitError
	if !errors.As(err, &exit) || exit.Signal == "" {
		t.Errorf("exit %v", err)
	}
	// The grandchild goes with its group (it is reaped by init).
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(child, 0) == nil && time.Now().Before(deadline) {
		if st, err := os.ReadFile("/proc/" + strconv.Itoa(child) + "/stat"); err == nil && strings.Contains(string(st), ") Z ") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if st, err := os.ReadFile("/proc/" + strconv.Itoa(child) + "/stat"); err == nil && !strings.Contains(string(st), ") Z ") {
		t.Errorf("the wrapper's child %d is still running: %s", child, st)
	}
}

func TestLastLineOfStderrIsCleaned(t *testing.T) {
	for in, want := range map[string]string{
		"ok\n\x1b]0;owned\x07\x1b[31mPermission denied\x1b[0m\n":                "Permission denied",
		"warning\r\nssh: connect to host node3 port 22: Connection refused\r\n": "ssh: connect to host node3 port 22: Connection refused",
		strings.Repeat("é", 200): strings.Repeat("é", 157) + "...",
	} {
		if got := lastLine(in); got != want {
			t.Errorf("lastLine(%q) = %q, want %q", in, got, want)
		}
	}
}
