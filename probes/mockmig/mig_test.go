package mockmig

import (
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxa100"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh100"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/gpus"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
)

// The names are those `nvidia-smi mig -lgip` prints for the profiles of
// go-nvml's tables (NVIDIA's MIG user guide lists the same).
func TestProfileNames(t *testing.T) {
	for _, c := range []struct {
		cfg    gpus.Config
		gi, ci int
		want   string
		share  float64
	}{
		{gpus.H100_SXM5_80GB, nvml.GPU_INSTANCE_PROFILE_1_SLICE, nvml.COMPUTE_INSTANCE_PROFILE_1_SLICE, "1g.10gb", 1.0 / 7},
		{gpus.H100_SXM5_80GB, nvml.GPU_INSTANCE_PROFILE_1_SLICE_REV1, nvml.COMPUTE_INSTANCE_PROFILE_1_SLICE, "1g.10gb+me", 1.0 / 7},
		{gpus.H100_SXM5_80GB, nvml.GPU_INSTANCE_PROFILE_1_SLICE_REV2, nvml.COMPUTE_INSTANCE_PROFILE_1_SLICE, "1g.20gb", 1.0 / 7},
		{gpus.H100_SXM5_80GB, nvml.GPU_INSTANCE_PROFILE_2_SLICE, nvml.COMPUTE_INSTANCE_PROFILE_2_SLICE, "2g.20gb", 2.0 / 7},
		{gpus.H100_SXM5_80GB, nvml.GPU_INSTANCE_PROFILE_3_SLICE, nvml.COMPUTE_INSTANCE_PROFILE_3_SLICE, "3g.40gb", 3.0 / 7},
		{gpus.H100_SXM5_80GB, nvml.GPU_INSTANCE_PROFILE_4_SLICE, nvml.COMPUTE_INSTANCE_PROFILE_4_SLICE, "4g.40gb", 4.0 / 7},
		{gpus.H100_SXM5_80GB, nvml.GPU_INSTANCE_PROFILE_7_SLICE, nvml.COMPUTE_INSTANCE_PROFILE_7_SLICE, "7g.80gb", 1},
		{gpus.H100_SXM5_80GB, nvml.GPU_INSTANCE_PROFILE_3_SLICE, nvml.COMPUTE_INSTANCE_PROFILE_1_SLICE, "1c.3g.40gb", 1.0 / 7},
		{gpus.A100_SXM4_40GB, nvml.GPU_INSTANCE_PROFILE_1_SLICE, nvml.COMPUTE_INSTANCE_PROFILE_1_SLICE, "1g.5gb", 1.0 / 7},
		{gpus.A100_SXM4_40GB, nvml.GPU_INSTANCE_PROFILE_2_SLICE, nvml.COMPUTE_INSTANCE_PROFILE_2_SLICE, "2g.10gb", 2.0 / 7},
		{gpus.A100_SXM4_40GB, nvml.GPU_INSTANCE_PROFILE_3_SLICE, nvml.COMPUTE_INSTANCE_PROFILE_3_SLICE, "3g.20gb", 3.0 / 7},
		{gpus.A100_SXM4_40GB, nvml.GPU_INSTANCE_PROFILE_3_SLICE, nvml.COMPUTE_INSTANCE_PROFILE_2_SLICE, "2c.3g.20gb", 2.0 / 7},
		{gpus.A100_SXM4_40GB, nvml.GPU_INSTANCE_PROFILE_7_SLICE, nvml.COMPUTE_INSTANCE_PROFILE_7_SLICE, "7g.40gb", 1},
		{gpus.A100_SXM4_80GB, nvml.GPU_INSTANCE_PROFILE_1_SLICE, nvml.COMPUTE_INSTANCE_PROFILE_1_SLICE, "1g.10gb", 1.0 / 7},
		{gpus.A100_SXM4_80GB, nvml.GPU_INSTANCE_PROFILE_7_SLICE, nvml.COMPUTE_INSTANCE_PROFILE_7_SLICE, "7g.80gb", 1},
	} {
		p, err := ProfileOf(c.cfg, Slice{c.gi, c.ci})
		if err != nil || p.Name != c.want || p.Share != c.share {
			t.Errorf("%s profile %d/%d: %+v, %v; want %s, share %v", c.cfg.Name, c.gi, c.ci, p, err, c.want, c.share)
		}
	}
	if _, err := ProfileOf(gpus.H100_SXM5_80GB, Slice{nvml.GPU_INSTANCE_PROFILE_6_SLICE, nvml.COMPUTE_INSTANCE_PROFILE_1_SLICE}); err == nil {
		t.Error("an H100 has no 6-slice profile")
	}
}

var a100Layout = []Slice{
	{nvml.GPU_INSTANCE_PROFILE_3_SLICE, nvml.COMPUTE_INSTANCE_PROFILE_3_SLICE},
	{nvml.GPU_INSTANCE_PROFILE_2_SLICE, nvml.COMPUTE_INSTANCE_PROFILE_2_SLICE},
	{nvml.GPU_INSTANCE_PROFILE_1_SLICE, nvml.COMPUTE_INSTANCE_PROFILE_1_SLICE},
}

// A layout made through the mock's API is listed in id order, each handle
// with the mock's ids, its profile's name and memory, and kept across calls.
func TestCreateAndEnumerate(t *testing.T) {
	dev := dgxa100.New().Devices[0].(*server.Device)
	g := New(dev)
	g.Wire()
	if n, ret := dev.GetMaxMigDeviceCount(); n != 0 || ret != nvml.SUCCESS {
		t.Errorf("MIG off: GetMaxMigDeviceCount = %d, %v", n, ret)
	}
	if _, err := Create(dev, a100Layout); err != nil {
		t.Fatal(err)
	}
	g.Used = func(gi int) uint64 { return uint64(gi+1) << 30 }
	if n, ret := dev.GetMaxMigDeviceCount(); n != 7 || ret != nvml.SUCCESS {
		t.Fatalf("GetMaxMigDeviceCount = %d, %v", n, ret)
	}
	for k, want := range []struct {
		name string
		gi   int
		mem  uint64
	}{{"3g.20gb", 0, 19968 << 20}, {"2g.10gb", 1, 9856 << 20}, {"1g.5gb", 2, 4864 << 20}} {
		h, ret := dev.GetMigDeviceHandleByIndex(k)
		if ret != nvml.SUCCESS {
			t.Fatalf("slot %d: %v", k, ret)
		}
		gi, _ := h.GetGpuInstanceId()
		ci, _ := h.GetComputeInstanceId()
		name, _ := h.GetName()
		uuid, _ := h.GetUUID()
		mem, _ := h.GetMemoryInfo_v2()
		parent, _ := h.GetDeviceHandleFromMigDeviceHandle()
		if gi != want.gi || ci != 0 || name != "Mock NVIDIA A100-SXM4-40GB MIG "+want.name || !strings.HasPrefix(uuid, "MIG-") ||
			len(uuid) != len("MIG-")+36 || mem.Total != want.mem || mem.Used != uint64(gi+1)<<30 || parent != dev {
			t.Errorf("slot %d: gi %d ci %d %q %s %+v", k, gi, ci, name, uuid, mem)
		}
		if again, _ := dev.GetMigDeviceHandleByIndex(k); again != h {
			t.Errorf("slot %d: a new handle on the second call", k)
		}
	}
	for k, want := range map[int]nvml.Return{3: nvml.ERROR_NOT_FOUND, 6: nvml.ERROR_NOT_FOUND, 7: nvml.ERROR_INVALID_ARGUMENT, -1: nvml.ERROR_INVALID_ARGUMENT} {
		if _, ret := dev.GetMigDeviceHandleByIndex(k); ret != want {
			t.Errorf("slot %d: %v, want %v", k, ret, want)
		}
	}
}

// The GI ids the mock hands out follow the order of creation; the
// placements keep the layout inside the GPU's seven slices.
func TestCreatePlacements(t *testing.T) {
	dev := dgxh100.New().Devices[0].(*server.Device)
	if _, err := Create(dev, a100Layout); err != nil {
		t.Fatal(err)
	}
	got := map[uint32]nvml.GpuInstancePlacement{}
	for gi := range dev.GpuInstances {
		got[gi.Info.Id] = gi.Info.Placement
	}
	want := map[uint32]nvml.GpuInstancePlacement{0: {Start: 0, Size: 3}, 1: {Start: 4, Size: 2}, 2: {Start: 3, Size: 1}}
	for id, p := range want {
		if got[id] != p {
			t.Errorf("GPU instance %d at %+v, want %+v", id, got[id], p)
		}
	}
	// A second 3g, 2g and 1g: the 3g has no room left.
	if _, err := Create(dev, a100Layout); err == nil || !strings.Contains(err.Error(), "3g.40gb: no room") {
		t.Errorf("a layout past the GPU: %v", err)
	}
}

// A fault answers instead of the call, on the GPU or on one handle.
func TestFault(t *testing.T) {
	dev := dgxa100.New().Devices[0].(*server.Device)
	g := New(dev)
	g.Wire()
	if _, err := Create(dev, a100Layout); err != nil {
		t.Fatal(err)
	}
	h, _ := dev.GetMigDeviceHandleByIndex(1)
	g.Fault = func(fn string, on *Device) nvml.Return {
		if fn == "GetMemoryInfo" && on == h {
			return nvml.ERROR_GPU_IS_LOST
		}
		if fn == "GetMaxMigDeviceCount" {
			return nvml.ERROR_NOT_SUPPORTED
		}
		return nvml.SUCCESS
	}
	if _, ret := h.GetMemoryInfo(); ret != nvml.ERROR_GPU_IS_LOST {
		t.Errorf("faulted handle: %v", ret)
	}
	if other, _ := dev.GetMigDeviceHandleByIndex(0); other != nil {
		if _, ret := other.GetMemoryInfo(); ret != nvml.SUCCESS {
			t.Errorf("other handle: %v", ret)
		}
	}
	if _, ret := dev.GetMaxMigDeviceCount(); ret != nvml.ERROR_NOT_SUPPORTED {
		t.Errorf("GetMaxMigDeviceCount: %v", ret)
	}
}
