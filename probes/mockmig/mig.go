package mockmig

import (
	"cmp"
	"crypto/sha256"
	"fmt"
	"slices"
	"sync"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
)

// GPU answers the MIG enumeration of one mock device from the GPU and
// compute instances the mock holds at the time of the call. Set its fields
// before the first call.
type GPU struct {
	dev *server.Device
	// Parent is what a MIG handle names as its parent
	// (GetDeviceHandleFromMigDeviceHandle): the mock device, unless the
	// caller hands out its own handle for it.
	Parent nvml.Device
	// Fault, if set, is asked first by every call this package answers,
	// with the call's name ("GetMaxMigDeviceCount", "GetMemoryInfo_v2")
	// and the MIG handle it is made on (nil for the GPU's own calls):
	// anything but SUCCESS is answered instead. A driver's faults (a lost
	// GPU, a call not supported) are injected here.
	Fault func(fn string, on *Device) nvml.Return
	// Used is the memory held in GPU instance gi; nil: none.
	Used func(gi int) uint64

	mu      sync.Mutex
	handles map[*server.ComputeInstance]*Device
}

// New answers dev's MIG enumeration; Wire sets it on dev.
func New(dev *server.Device) *GPU {
	return &GPU{dev: dev, Parent: dev, handles: map[*server.ComputeInstance]*Device{}}
}

// Wire sets dev's GetMaxMigDeviceCount and GetMigDeviceHandleByIndex, which
// the mock leaves nil (a call would panic), to g's.
func (g *GPU) Wire() {
	g.dev.GetMaxMigDeviceCountFunc = g.GetMaxMigDeviceCount
	g.dev.GetMigDeviceHandleByIndexFunc = g.GetMigDeviceHandleByIndex
}

func (g *GPU) fault(fn string, on *Device) nvml.Return {
	if g.Fault == nil {
		return nvml.SUCCESS
	}
	return g.Fault(fn, on)
}

func (g *GPU) migOn() bool {
	g.dev.RLock()
	defer g.dev.RUnlock()
	return g.dev.MigMode == nvml.DEVICE_MIG_ENABLE
}

// maxDevices is the most instances any profile of the GPU allows: seven
// 1g slices on an A100 or H100.
func (g *GPU) maxDevices() int {
	n := 0
	for _, p := range g.dev.Config.MIGProfiles.GpuInstanceProfiles {
		n = max(n, int(p.InstanceCount))
	}
	return n
}

// GetMaxMigDeviceCount is the most MIG devices the GPU can have; 0 while
// MIG is off, as NVML answers.
func (g *GPU) GetMaxMigDeviceCount() (int, nvml.Return) {
	if ret := g.fault("GetMaxMigDeviceCount", nil); ret != nvml.SUCCESS {
		return 0, ret
	}
	if !g.migOn() {
		return 0, nvml.SUCCESS
	}
	return g.maxDevices(), nvml.SUCCESS
}

// GetMigDeviceHandleByIndex is the handle of the k-th compute instance in
// the order of GPU instance id, then compute instance id: NOT_FOUND past the
// last, INVALID_ARGUMENT outside [0, GetMaxMigDeviceCount).
func (g *GPU) GetMigDeviceHandleByIndex(k int) (nvml.Device, nvml.Return) {
	if ret := g.fault("GetMigDeviceHandleByIndex", nil); ret != nvml.SUCCESS {
		return nil, ret
	}
	if !g.migOn() || k < 0 || k >= g.maxDevices() {
		return nil, nvml.ERROR_INVALID_ARGUMENT
	}
	devs := g.Devices()
	if k >= len(devs) {
		return nil, nvml.ERROR_NOT_FOUND
	}
	return devs[k], nvml.SUCCESS
}

// Devices are the MIG handles of every compute instance the mock holds now,
// in index order. A compute instance keeps its handle for as long as it
// exists, as a driver's handle stays valid.
func (g *GPU) Devices() []*Device {
	type found struct {
		gi *server.GpuInstance
		ci *server.ComputeInstance
	}
	var all []found
	g.dev.RLock()
	for gi := range g.dev.GpuInstances {
		gi.RLock()
		for ci := range gi.ComputeInstances {
			all = append(all, found{gi, ci})
		}
		gi.RUnlock()
	}
	g.dev.RUnlock()
	slices.SortFunc(all, func(a, b found) int {
		return cmp.Or(cmp.Compare(a.gi.Info.Id, b.gi.Info.Id), cmp.Compare(a.ci.Info.Id, b.ci.Info.Id))
	})
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]*Device, 0, len(all))
	for _, f := range all {
		d, ok := g.handles[f.ci]
		if !ok {
			d = g.newDevice(f.gi, f.ci)
			g.handles[f.ci] = d
		}
		out = append(out, d)
	}
	return out
}

// Device is a MIG device handle. The calls a monitor makes on one are
// answered here, without the mock's call log (a demo asks for memory every
// second for days); any other falls to the embedded mock.Device, whose nil
// functions panic, so a call nobody meant to make shows at once.
type Device struct {
	*mock.Device
	gpu *GPU
	// GPUInstance and ComputeInstance are the mock's instances behind the
	// handle.
	GPUInstance     *server.GpuInstance
	ComputeInstance *server.ComputeInstance
	gi, ci          int
	// Profile is the instance's, from the GPU's profile table.
	Profile Profile
	// UUID is "MIG-" and a UUID made from the parent's and the ids; set it
	// before the first call to give another.
	UUID string
}

func (g *GPU) newDevice(gi *server.GpuInstance, ci *server.ComputeInstance) *Device {
	giInfo, _ := gi.GetInfo()
	ciInfo, _ := ci.GetInfo()
	d := &Device{Device: &mock.Device{}, gpu: g, GPUInstance: gi, ComputeInstance: ci,
		gi: int(giInfo.Id), ci: int(ciInfo.Id)}
	// Created through the mock, the profiles are in its table.
	d.Profile, _ = ProfileOf(g.dev.Config, Slice{GIProfile: int(giInfo.ProfileId), CIProfile: int(ciInfo.ProfileId)})
	b := sha256.Sum256(fmt.Appendf(nil, "%s/%d/%d", g.dev.UUID, d.gi, d.ci))
	d.UUID = fmt.Sprintf("MIG-%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
	return d
}

// GI is the GPU instance id the mock gave.
func (d *Device) GI() int { return d.gi }

// CI is the compute instance id within it.
func (d *Device) CI() int { return d.ci }

// GetGpuInstanceId is the id of the handle's GPU instance.
func (d *Device) GetGpuInstanceId() (int, nvml.Return) {
	return d.gi, d.gpu.fault("GetGpuInstanceId", d)
}

// GetComputeInstanceId is the id of its compute instance.
func (d *Device) GetComputeInstanceId() (int, nvml.Return) {
	return d.ci, d.gpu.fault("GetComputeInstanceId", d)
}

// GetName is the parent's name and the profile, as NVML names a MIG
// device: "NVIDIA H100 80GB HBM3 MIG 3g.40gb".
func (d *Device) GetName() (string, nvml.Return) {
	if ret := d.gpu.fault("GetName", d); ret != nvml.SUCCESS {
		return "", ret
	}
	if d.Profile.Name == "" {
		return d.gpu.dev.Config.Name, nvml.SUCCESS
	}
	return d.gpu.dev.Config.Name + " MIG " + d.Profile.Name, nvml.SUCCESS
}

// GetUUID is the handle's MIG UUID.
func (d *Device) GetUUID() (string, nvml.Return) {
	if ret := d.gpu.fault("GetUUID", d); ret != nvml.SUCCESS {
		return "", ret
	}
	return d.UUID, nvml.SUCCESS
}

func (d *Device) used() uint64 {
	if d.gpu.Used == nil {
		return 0
	}
	return min(d.gpu.Used(d.gi), d.Profile.Memory)
}

// GetMemoryInfo is the GPU instance's memory and what its processes hold.
func (d *Device) GetMemoryInfo() (nvml.Memory, nvml.Return) {
	if ret := d.gpu.fault("GetMemoryInfo", d); ret != nvml.SUCCESS {
		return nvml.Memory{}, ret
	}
	used, total := d.used(), d.Profile.Memory
	return nvml.Memory{Total: total, Used: used, Free: total - used}, nvml.SUCCESS
}

// GetMemoryInfo_v2 is the same, with nothing reserved apart: the driver's
// reserve is the parent's.
func (d *Device) GetMemoryInfo_v2() (nvml.Memory_v2, nvml.Return) {
	if ret := d.gpu.fault("GetMemoryInfo_v2", d); ret != nvml.SUCCESS {
		return nvml.Memory_v2{}, ret
	}
	used, total := d.used(), d.Profile.Memory
	return nvml.Memory_v2{Version: nvml.STRUCT_VERSION(nvml.Memory_v2{}, 2), Total: total, Used: used, Free: total - used}, nvml.SUCCESS
}

// IsMigDeviceHandle is true.
func (d *Device) IsMigDeviceHandle() (bool, nvml.Return) {
	return true, d.gpu.fault("IsMigDeviceHandle", d)
}

// GetDeviceHandleFromMigDeviceHandle is the parent GPU's handle.
func (d *Device) GetDeviceHandleFromMigDeviceHandle() (nvml.Device, nvml.Return) {
	if ret := d.gpu.fault("GetDeviceHandleFromMigDeviceHandle", d); ret != nvml.SUCCESS {
		return nil, ret
	}
	return d.gpu.Parent, nvml.SUCCESS
}
