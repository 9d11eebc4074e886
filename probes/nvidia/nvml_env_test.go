package nvidia

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestDeviceNodes(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"nvidia1", "nvidiactl", "nvidia0", "nvidia-uvm", "null", "nvme0n1"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, err := deviceNodes(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"nvidia-uvm", "nvidia0", "nvidia1", "nvidiactl"}
	for i := range want {
		want[i] = filepath.Join(dir, want[i])
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}

	empty, err := deviceNodes(t.TempDir())
	if err != nil || len(empty) != 0 {
		t.Errorf("empty dir: %v, %v", empty, err)
	}
	if _, err := deviceNodes(filepath.Join(dir, "missing")); err == nil {
		t.Error("no error for a missing directory")
	}
}
