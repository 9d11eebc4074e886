package nvidia

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gputop-dev/gputop/timeline"
)

func TestPCIBusIDFromNVMLsStruct(t *testing.T) {
	put := func(dst []int8, s string) {
		for i := range len(s) {
			dst[i] = int8(s[i])
		}
	}
	for _, tc := range []struct {
		name          string
		busID, legacy string
		unterminated  bool
		want          string
	}{
		{"current", "00000000:3B:00.0", "0000:3B:00.0", false, "00000000:3B:00.0"},
		{"only the legacy field (oldest drivers)", "", "0000:3B:00.0", false, "0000:3B:00.0"},
		{"neither: unknown, not made up", "", "", false, ""},
		{"not text", "0000\x01:3B", "", false, ""},
		{"no NUL in 32 bytes", strings.Repeat("0", 32), "", true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p nvml.PciInfo
			put(p.BusId[:], tc.busID)
			put(p.BusIdLegacy[:], tc.legacy)
			p.Domain, p.Bus = 0, 0x3B // never used in place of the text
			if got := pciBusID(p); got != tc.want {
				t.Errorf("pciBusID = %q, want %q", got, tc.want)
			}
		})
	}
}

// A GPU without a bus id is monitored all the same, its bus id unknown;
// one lost while it is read is left out, as for any call at open.
func TestNVMLPCIBusIDNotSupportedOrLost(t *testing.T) {
	r := newRig(t)
	r.fakes[1].rets = map[string]nvml.Return{"GetPciInfo": nvml.ERROR_NOT_SUPPORTED}
	r.fakes[2].rets = map[string]nvml.Return{"GetPciInfo": nvml.ERROR_GPU_IS_LOST}
	r.fakes[3].rets = map[string]nvml.Return{"GetPciInfo": nvml.ERROR_UNKNOWN}
	n := r.open(t)
	gpus := n.GPUs()
	if len(gpus) != 7 {
		t.Fatalf("%d GPUs monitored, want 7 (gpu2 lost at open)", len(gpus))
	}
	byIndex := map[int]timeline.GPUInfo{}
	for _, g := range gpus {
		byIndex[g.Index] = g
	}
	if _, ok := byIndex[2]; ok {
		t.Error("gpu2, lost at open, is monitored")
	}
	for _, i := range []int{1, 3} {
		if g := byIndex[i]; g.PCIBusID != "" || g.UUID == "" {
			t.Errorf("gpu%d: bus id %q (want unknown), UUID %q", i, g.PCIBusID, g.UUID)
		}
	}
	if g := byIndex[0]; g.PCIBusID != rigBusID(0) {
		t.Errorf("gpu0: bus id %q", g.PCIBusID)
	}
	for _, want := range []string{"gpu1 NVIDIA H100 80GB HBM3", "PCI bus id: Not Supported", "PCI bus id: Unknown Error", "gpu2: not monitored: GPU is lost"} {
		if !hasCheck(n, want) {
			t.Errorf("Checks lack %q:\n%s", want, strings.Join(n.Checks(), "\n"))
		}
	}
	// Asked once, at open.
	r.collect(t, n)
	if c := len(r.devs[0].GetPciInfoCalls()); c != 1 {
		t.Errorf("GetPciInfo called %d times, want once at open", c)
	}
}

// Memory lost mid-run: the GPU is lost, and no free memory is reported
// for it (not a 0, not a stale value).
func TestNVMLMemoryLostMidRun(t *testing.T) {
	r := newRig(t)
	n := r.open(t)
	wantValue(t, r.collect(t, n)[5].Reading, timeline.GPUMemFree, float64(80<<30-6<<30-rigReserved))
	r.fakes[5].rets = map[string]nvml.Return{"GetMemoryInfo_v2": nvml.ERROR_GPU_IS_LOST}
	res := r.collect(t, n)[5]
	if !res.Lost || !errors.Is(res.err, ErrGPULost) {
		t.Fatalf("lost %v, error %v", res.Lost, res.err)
	}
	wantAbsent(t, res.Reading, timeline.GPUMemFree)
	if !hasCheck(n, "gpu5: GPU is lost (in memory)") {
		t.Errorf("Checks:\n%s", strings.Join(n.Checks(), "\n"))
	}
	// A failure that may pass leaves this tick's free memory unknown.
	r.fakes[6].rets = map[string]nvml.Return{"GetMemoryInfo_v2": nvml.ERROR_TIMEOUT}
	res = r.collect(t, n)[6]
	wantValue(t, res.Reading, timeline.GPUMemFree, math.NaN())
}

// Whatever bytes a driver leaves in the struct, the bus id is printable
// ASCII without a NUL, and fits the field it came from. The seeds in
// testdata/fuzz/FuzzPCIBusID are NVML's two layouts of a DGX H100's bus
// ids as nvidia-smi shows them (BusId with a 32-bit domain, BusIdLegacy
// with a 16-bit one), written by hand.
func FuzzPCIBusID(f *testing.F) {
	f.Add([]byte("00000000:18:00.0\x00"), []byte("0000:18:00.0\x00"))
	f.Add([]byte{}, []byte("0000:3B:00.0\x00"))
	f.Add([]byte("\xff\xfe"), []byte{})
	f.Fuzz(func(t *testing.T, busID, legacy []byte) {
		var p nvml.PciInfo
		for i := range min(len(busID), len(p.BusId)) {
			p.BusId[i] = int8(busID[i])
		}
		for i := range min(len(legacy), len(p.BusIdLegacy)) {
			p.BusIdLegacy[i] = int8(legacy[i])
		}
		got := pciBusID(p)
		if len(got) >= len(p.BusId) {
			t.Errorf("%q is longer than the field", got)
		}
		for _, c := range []byte(got) {
			if c < ' ' || c > '~' {
				t.Fatalf("%q holds %#x", got, c)
			}
		}
	})
}
