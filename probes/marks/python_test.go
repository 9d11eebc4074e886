package marks

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// pythonSnippet is the "Marking phases from Python" code of docs/run.md.
const pythonSnippet = "testdata/gputop_mark.py"

// runPython runs the snippet and then calls under python3, as a job.
func runPython(t *testing.T, env []string, calls string) (code int, stderr string) {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		timelinetest.Unavailable(t, "python3 is not installed")
	}
	snippet, err := os.ReadFile(pythonSnippet)
	if err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	cmd := exec.Command(python, "-c", string(snippet)+"\n"+calls)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = &errOut, &errOut
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	code = cmd.ProcessState.ExitCode()
	return code, errOut.String()
}

func TestPythonSnippetMarksPhases(t *testing.T) {
	l, log := listenForTest(t, t.TempDir())
	code, stderr := runPython(t, []string{SocketEnv + "=" + l.Path()}, `
gputop_mark("epoch 1")
gputop_mark("x" * 300)
gputop_mark("évaluation ✓")
`)
	if code != 0 {
		t.Errorf("python exited %d: %s", code, stderr)
	}
	if want := []string{"epoch 1", "évaluation ✓"}; !slices.Equal(log.got(), want) {
		t.Errorf("session got %q, want %q", log.got(), want)
	}
	if want := "gputop mark: error: marker is longer than 200 bytes\n"; stderr != want {
		t.Errorf("python printed %q, want %q", stderr, want)
	}
}

func TestPythonSnippetOutsideGputopRun(t *testing.T) {
	t.Setenv(SocketEnv, "")
	if err := os.Unsetenv(SocketEnv); err != nil {
		t.Fatal(err)
	}
	if code, out := runPython(t, nil, `gputop_mark("epoch 1")`); code != 0 || out != "" {
		t.Errorf("without %s: exit %d, output %q; want 0 and nothing", SocketEnv, code, out)
	}
	// The session is gone (gputop was killed): the job carries on.
	gone := filepath.Join(t.TempDir(), "1.sock")
	code, out := runPython(t, []string{SocketEnv + "=" + gone}, `gputop_mark("epoch 1")`)
	if code != 0 || !strings.HasPrefix(out, "gputop mark: ") {
		t.Errorf("with the session gone: exit %d, output %q; want 0 and one warning", code, out)
	}
}

// TestDocsShowTheTestedSnippet keeps the Python code of docs/run.md the
// code tested here.
func TestDocsShowTheTestedSnippet(t *testing.T) {
	readme, err := os.ReadFile("../../docs/run.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, found := strings.Cut(string(readme), "Marking phases from Python")
	if !found {
		t.Fatal(`docs/run.md has no "Marking phases from Python" section`)
	}
	_, code, found := strings.Cut(section, "```python\n")
	code, _, closed := strings.Cut(code, "```")
	if !found || !closed {
		t.Fatal(`docs/run.md's "Marking phases from Python" section has no python code block`)
	}
	snippet, err := os.ReadFile(pythonSnippet)
	if err != nil {
		t.Fatal(err)
	}
	if code != string(snippet) {
		t.Errorf("docs/run.md's Python code differs from %s, which is what the tests run:\n%s", pythonSnippet, code)
	}
}
