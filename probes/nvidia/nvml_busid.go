package nvidia

import "github.com/NVIDIA/go-nvml/pkg/nvml"

// pciBusID is the bus id NVML gives in pci ("00000000:18:00.0"), the
// label dcgm-exporter calls pci_bus_id; "" if it gave none or something
// that is not a bus id. NVML fills BusId (32 bytes, a 32-bit domain) on
// drivers since R331 and BusIdLegacy (16 bytes) on the oldest; a number
// never stands in for it: formatting Domain, Bus and Device would make
// up "00000000:00:00.0" for a device that did not say.
func pciBusID(pci nvml.PciInfo) string {
	if id := cString(pci.BusId[:]); id != "" {
		return id
	}
	return cString(pci.BusIdLegacy[:])
}

// cString is the NUL-terminated ASCII text at the start of b; "" if it
// holds anything but printable ASCII before the NUL, or has no NUL.
func cString(b []int8) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		switch {
		case c == 0:
			return string(out)
		case c < ' ' || c > '~':
			return ""
		}
		out = append(out, byte(c))
	}
	return ""
}
