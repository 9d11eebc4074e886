package nvidia

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// DeviceNodes lists the NVIDIA device nodes in /dev (/dev/nvidia0,
// /dev/nvidiactl, /dev/nvidia-uvm, ...), sorted, without touching NVML. None
// means the driver is not loaded or no GPU is passed into this container, so
// main can say "no /dev/nvidia* device nodes" before trying nvmlInit.
func DeviceNodes() ([]string, error) { return deviceNodes("/dev") }

// deviceNodes lists dir's entries named nvidia*, as paths under dir.
func deviceNodes(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var nodes []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "nvidia") {
			nodes = append(nodes, filepath.Join(dir, e.Name()))
		}
	}
	slices.Sort(nodes)
	return nodes, nil
}
