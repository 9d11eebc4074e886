package importer

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// A named pipe without a writer, a directory or a device is refused at
// once, in one line, never waited on.
func TestOpenFileRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "log.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		timelinetest.Unavailable(t, "no named pipes here: %v", err)
	}
	for path, want := range map[string]string{
		fifo:        "log.csv: a named pipe, not a regular file",
		dir:         ": a directory, not a regular file",
		"/dev/null": "open /dev/null: a character device, not a regular file",
	} {
		done := make(chan error, 1)
		go func() {
			f, err := OpenFile(path)
			if err == nil {
				f.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: %v, want one line with %q", path, err, want)
			}
		case <-time.After(10 * time.Second): // a hang guard, not a timing
			t.Fatalf("opening %s blocked", path)
		}
	}
	plain := filepath.Join(dir, "plain.csv")
	if err := os.WriteFile(plain, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}
