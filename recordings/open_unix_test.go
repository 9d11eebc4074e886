//go:build unix

package recordings

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A named pipe with no writer, a device that never runs out: Open and
// Identify refuse what is not a regular file at once, in one line,
// without waiting on it.
func TestOpenRefusesWhatIsNotARegularFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "run.gtr")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, says string }{
		{fifo, "a named pipe, not a regular file"},
		{"/dev/zero", "a device, not a regular file"},
	} {
		done := make(chan error, 2)
		go func() {
			r, err := Open(c.path)
			if err == nil {
				r.Close()
			}
			done <- err
			_, err = Identify(c.path)
			done <- err
		}()
		for _, call := range []string{"Open", "Identify"} {
			select {
			case err := <-done:
				var nr *NotRecordingError
				if !errors.As(err, &nr) || !strings.Contains(err.Error(), c.says) {
					t.Errorf("%s(%s): %v; want one saying %q", call, c.path, err, c.says)
				}
				oneLine(t, err)
			case <-time.After(hangGuard):
				t.Fatalf("%s(%s) is still waiting after %v", call, c.path, hangGuard)
			}
		}
	}
}
