package main

import (
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// sshHosts is a real OpenSSH server on 127.0.0.1 at a free port, with a
// throwaway host key, and "hosts" that are keys of its one user: each
// key's forced command (authorized_keys' command=) runs what the client
// asked for (ssh's SSH_ORIGINAL_COMMAND, "gputop stream --interval 1s")
// with that host's demo scenario, so the client side is exactly what a
// person runs: ssh HOST gputop stream, through a config file (-F).
type sshHosts struct {
	dir, config string
	port        int
}

// hostScenario is each host's demo, or "" for a host without gputop.
var hostScenario = map[string]string{"alpha": "training", "beta": "imbalance", "gamma": ""}

func startSSHD(t *testing.T, bin string) *sshHosts {
	t.Helper()
	if testing.Short() {
		t.Skip("runs sshd: skipped with -short")
	}
	for _, tool := range []string{"/usr/sbin/sshd", "ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			timelinetest.Unavailable(t, "%s is not installed (.ci/run installs openssh-server and openssh-client)", tool)
		}
	}
	// sshd wants its privilege separation directory when run as root.
	if os.Geteuid() == 0 {
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			timelinetest.Unavailable(t, "no /run/sshd: %v", err)
		}
	}
	// A short path: sshd and ssh keep sockets and names under it.
	dir, err := os.MkdirTemp("", "gputop-ssh")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	keygen := func(path string) string {
		out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "gputop-test", "-f", path).CombinedOutput()
		if err != nil {
			t.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
		pub, err := os.ReadFile(path + ".pub")
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(pub))
	}
	hostKey := keygen(filepath.Join(dir, "hostkey"))
	// The forced command: the stream of this host's scenario, its pid
	// written where the test can kill it; a host without gputop has a PATH
	// without it.
	remote := filepath.Join(dir, "remote.sh")
	script := `#!/bin/sh
name=$1 scenario=$2
if [ -e "` + dir + `/$name.down" ]; then echo "$name is down for the test" >&2; exit 1; fi
echo $$ > "` + dir + `/$name.pid"
set -- $SSH_ORIGINAL_COMMAND
# Each host a runtime directory of its own, as on a machine of its own: no
# gputop mark, attach or stream of anyone else's reaches its stream.
export XDG_RUNTIME_DIR="` + dir + `/run-$name"
mkdir -p -m 700 "$XDG_RUNTIME_DIR"
if [ -z "$scenario" ]; then exec env PATH=/usr/bin:/bin "$@"; fi
shift
exec "` + bin + `" "$@" --demo="$scenario"
`
	if err := os.WriteFile(remote, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	var authorized strings.Builder
	for _, name := range []string{"alpha", "beta", "gamma"} {
		pub := keygen(filepath.Join(dir, name))
		fmt.Fprintf(&authorized, "command=\"%s %s %s\",no-pty,no-port-forwarding,no-agent-forwarding,no-X11-forwarding %s\n",
			remote, name, hostScenario[name], pub)
	}
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// "login" is a person's own login: any command, with a terminal.
	fmt.Fprintf(&authorized, "%s\n", keygen(filepath.Join(dir, "login")))
	write("authorized_keys", authorized.String())
	port := freePort(t)
	closed := refusingPort(t) // nothing listens there: an unreachable host
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	sshdConfig := write("sshd_config", fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s/hostkey
AuthorizedKeysFile %s/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
PidFile %s/sshd.pid
LogLevel ERROR
`, port, dir, dir, dir))
	write("known_hosts", fmt.Sprintf("[127.0.0.1]:%d %s\n", port, hostKey))
	var cfg strings.Builder
	for _, name := range []string{"alpha", "beta", "gamma", "login"} {
		fmt.Fprintf(&cfg, "Host %s\n  IdentityFile %s/%s\n", name, dir, name)
	}
	fmt.Fprintf(&cfg, "Host delta\n  Port %d\n", closed)
	fmt.Fprintf(&cfg, `Host *
  HostName 127.0.0.1
  Port %d
  User %s
  IdentitiesOnly yes
  IdentityAgent none
  UserKnownHostsFile %s/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  ControlMaster no
  LogLevel ERROR
`, port, me.Username, dir)
	config := write("ssh_config", cfg.String())

	sshd := exec.Command("/usr/sbin/sshd", "-D", "-e", "-f", sshdConfig)
	sshd.Stderr, _ = os.Create(filepath.Join(dir, "sshd.log"))
	sshd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := sshd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The whole group: sshd and the sessions it forked.
		syscall.Kill(-sshd.Process.Pid, syscall.SIGKILL)
		sshd.Wait()
	})
	h := &sshHosts{dir: dir, config: config, port: port}
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "sshd.log"))
			t.Fatalf("sshd never listened: %v\n%s", err, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return h
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// sshCommand is --ssh-command for these hosts.
func (h *sshHosts) sshCommand() string { return "ssh -F " + h.config }

// streamPid is the pid of host's remote gputop stream.
func (h *sshHosts) streamPid(t *testing.T, host string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(h.dir, host+".pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// The real ssh reaches the real sshd as the user running the tests (root
// here: PermitRootLogin prohibit-password), and each host runs its forced
// command.
func TestSSHHostsAnswer(t *testing.T) {
	bin := buildBinary(t)
	h := startSSHD(t, bin)
	out, err := exec.Command("ssh", "-F", h.config, "-T", "-o", "BatchMode=yes", "alpha", "gputop", "snapshot").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "DEMO") {
		t.Fatalf("ssh alpha gputop snapshot: %v\n%s", err, out)
	}
	out, err = exec.Command("ssh", "-F", h.config, "-T", "-o", "BatchMode=yes", "gamma", "gputop", "version").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "gputop") {
		t.Fatalf("gamma has gputop: %v\n%s", err, out)
	}
	t.Logf("gamma: %s", out)
}

// TestHostsOverSSH is issue 16's end to end: `gputop --hosts` through the
// real ssh and sshd shows two hosts, says why the others are not there,
// shows a host's killed stream as a gap and reconnects it, and records one
// file of every host that replays and reports.
func TestHostsOverSSH(t *testing.T) {
	bin := buildBinary(t)
	h := startSSHD(t, bin)
	path := filepath.Join(h.dir, "hosts.gtr")
	logPath := filepath.Join(h.dir, "gputop.log")
	runtime := filepath.Join(h.dir, "run") // the viewer's marker socket, apart from any other session's
	if err := os.Mkdir(runtime, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := fmt.Sprintf("XDG_RUNTIME_DIR=%s %s --hosts alpha,beta,gamma,delta --ssh-command %q --record %s --log %s; echo EXIT=$?; sleep 60",
		runtime, bin, h.sshCommand(), path, logPath)
	term := newTerminal(t, 200, 50, cmd)
	// Both streaming hosts' GPUs (eight each) are on screen, and the hosts
	// that cannot stream say why.
	term.waitFor("4 hosts, 16 GPUs", " alpha ", " beta ", "8/8 busy")
	term.waitFor("gputop is not installed on gamma")
	term.waitFor("cannot connect: ssh: connect to host 127.0.0.1 port")
	// Each host's stream listens in the runtime directory its host gave it.
	for _, host := range []string{"alpha", "beta"} {
		sock := filepath.Join(h.dir, "run-"+host, "gputop", fmt.Sprintf("%d.sock", h.streamPid(t, host)))
		if _, err := os.Stat(sock); err != nil {
			t.Errorf("%s's stream does not listen in its own runtime directory: %v", host, err)
		}
	}

	// alpha's remote gputop stream is killed, and alpha refuses to stream
	// for a while: its line says why and when it tries again, beta goes on,
	// and alpha comes back by itself.
	first := h.streamPid(t, "alpha")
	down := filepath.Join(h.dir, "alpha.down")
	if err := os.WriteFile(down, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killedAt := time.Now()
	term.waitFor("alpha is down for the test; retrying in")
	if err := os.Remove(down); err != nil {
		t.Fatal(err)
	}
	// Backoff is capped at 30s: the next try after alpha is back up is at
	// most that far away, whatever a loaded machine made of the wait above.
	deadline := time.Now().Add(40 * time.Second)
	for h.streamPid(t, "alpha") == first {
		if time.Now().After(deadline) {
			t.Fatalf("alpha never reconnected:\n%s", term.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("alpha reconnected %v after its stream was killed", time.Since(killedAt).Round(time.Millisecond))
	// A marker (m) goes to both hosts' streams, comes back in each, and is
	// one marker. (Not gputop mark: the viewer and the hosts' streams each
	// listen in a runtime directory of their own.)
	term.keys("m")
	term.keys("-l", "phase two")
	term.keys("Enter")
	term.waitFor("┃phase")
	time.Sleep(3 * time.Second) // a few samples after the reconnection
	term.keys("q")
	term.waitFor("EXIT=0")
	// Quitting ended every remote stream (ssh gone, sshd hung up on them).
	for _, host := range []string{"alpha", "beta"} {
		pid := h.streamPid(t, host)
		deadline := time.Now().Add(10 * time.Second)
		for syscall.Kill(pid, 0) == nil {
			if time.Now().After(deadline) {
				t.Errorf("%s's stream (pid %d) runs on after quit", host, pid)
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	r, err := recordings.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	info := r.Info()
	var names []string
	for _, host := range info.Hosts {
		names = append(names, host.Name)
	}
	if !slices.Equal(names, []string{"alpha", "beta", "gamma", "delta"}) || len(info.GPUsOf("alpha")) != 8 || len(info.GPUsOf("beta")) != 8 {
		t.Fatalf("the recording's hosts %q, GPUs %+v", names, info.GPUs)
	}
	alphaGPU := timeline.Key{Name: timeline.GPUUtil, Device: timeline.GPUDevice(info.GPUsOf("alpha")[0])}
	betaGPU := timeline.Key{Name: timeline.GPUUtil, Device: timeline.GPUDevice(info.GPUsOf("beta")[0])}
	// While alpha is down, its samples carry why and none of its values;
	// beta's go on; then alpha's come back.
	var gap, alphaInGap, betaInGap, after int
	var reasons, markers []string
	for {
		s, err := r.Read()
		if err != nil {
			break
		}
		// A host with nothing due holds its place with gaps (NaN).
		hasAlpha, hasBeta := hasValue(s, alphaGPU), hasValue(s, betaGPU)
		for _, m := range s.Markers {
			markers = append(markers, m.Text)
		}
		down := false
		for _, p := range s.Probes {
			if p.Probe == timeline.RemoteProbe && p.Device == "alpha" && p.State == timeline.ProbeFailed {
				down = true
				if !slices.Contains(reasons, p.Err) {
					reasons = append(reasons, p.Err)
				}
			}
		}
		switch {
		case down:
			gap++
			if hasAlpha {
				alphaInGap++
			}
			if hasBeta {
				betaInGap++
			}
		case gap > 0 && hasAlpha:
			after++
		}
	}
	t.Logf("alpha was down for %d samples (beta in %d), then %d samples; why: %q", gap, betaInGap, after, reasons)
	if gap == 0 || alphaInGap > 0 || betaInGap < gap-1 || after == 0 {
		t.Errorf("alpha: %d samples down (%d with its values, beta in %d), %d after it came back", gap, alphaInGap, betaInGap, after)
	}
	if len(reasons) < 2 || !strings.HasPrefix(reasons[0], "dropped") || !strings.HasSuffix(reasons[0], "; retrying in 1s") ||
		reasons[1] != "ended: alpha is down for the test; retrying in 2s" {
		t.Errorf("alpha's reasons %q", reasons)
	}
	if !slices.Equal(markers, []string{"phase two"}) {
		t.Errorf("markers %q, want one", markers)
	}
	// The file is an ordinary recording: it replays on the same screen.
	replay := newTerminal(t, 200, 50, fmt.Sprintf("%s replay %s --log %s; echo EXIT=$?; sleep 60", bin, path, logPath))
	replay.waitFor("REPLAY hosts.gtr", "4 hosts, 16 GPUs", " alpha ", " beta ")
	replay.keys("q")
	replay.waitFor("EXIT=0")
	report, err := exec.Command(bin, "report", path).CombinedOutput()
	if err != nil || !strings.Contains(string(report), "HOSTS") || !strings.Contains(string(report), "alpha (8 GPUs)") ||
		!strings.Contains(string(report), "beta (8 GPUs)") {
		t.Errorf("the report does not name both hosts: %v\n%s", err, report)
	}
}

// hasValue says whether s has a value (not a gap) for k.
func hasValue(s timeline.Sample, k timeline.Key) bool {
	v, ok := s.Value(k)
	return ok && !math.IsNaN(v)
}
