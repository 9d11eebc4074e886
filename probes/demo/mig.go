package demo

import (
	"fmt"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
)

// MIG as the demo answers for it. go-nvml's mock servers know MIG profiles
// but hand out no MIG device handles, so the demo makes its own: one per
// slice a script gives a GPU, answering what NVML answers on a MIG handle
// (instance ids, name with the profile, memory) and GPM per GPU instance
// through the parent's GpmMigSampleGet. Utilisation is not supported on a
// MIG-enabled GPU, and the parent's own GPM is refused, as nvml.md says.

// migSlice is one MIG compute instance a script puts on a GPU.
type migSlice struct {
	Profile string  // H100 80GB profile: "3g.40gb"
	GI, CI  int     // NVML's GPU and compute instance ids
	Mem     float64 // bytes the instance has
	// Compute is the share of the GPU's SMs the slice has (3 of 7 for
	// 3g): it weighs the slice's work in the GPU's power.
	Compute float64
}

// h100MaxMig is the most MIG devices an H100 can have (seven 1g slices).
const h100MaxMig = 7

// demoMIG is one slice's handle. Methods the demo does not answer fall to
// the embedded mock.Device, whose nil functions panic: a call the probe
// was not meant to make shows at once.
type demoMIG struct {
	*mock.Device
	parent *demoDevice
	slot   int
	slice  migSlice
	uuid   string
	totals *ledger[gpuTotals]
}

func newDemoMIG(parent *demoDevice, slot int, s migSlice, n noise) *demoMIG {
	m := &demoMIG{Device: &mock.Device{}, parent: parent, slot: slot, slice: s}
	a := mix(n.seed ^ mix(uint64(sDemoUUID)) ^ uint64(100+parent.gpu.index*h100MaxMig+slot))
	m.uuid = fmt.Sprintf("MIG-%08x-%04x-5%03x-%04x-%012x", a>>32, a>>16&0xffff, a&0xfff, 0x8000|a>>40&0x3fff, mix(a)&0xffffffffffff)
	m.totals = newLedger(gpuTotals{}, m.addSlot)
	return m
}

// load is what the slice's work does in slot k.
func (m *demoMIG) load(k int64) gpuLoad { return m.parent.gpu.sc.migLoad(m.slot, slotOf(k)) }

func (m *demoMIG) addSlot(k int64, secs float64, t *gpuTotals) {
	l := m.load(k)
	t.SM += l.SM * secs
	t.Occupancy += l.Occupancy * secs
	t.Tensor += l.Tensor * secs
	t.DRAM += l.DRAM * secs
}

// memUsed is what the scripted processes in this instance hold.
func (m *demoMIG) memUsed() float64 {
	var used float64
	for _, p := range m.parent.gpu.sc.procs {
		for _, r := range p.On {
			if r.GPU == m.parent.gpu.index && r.GI == m.slice.GI {
				used += r.Mem
			}
		}
	}
	return used
}

// GetGpuInstanceId is the slice's GPU instance.
func (m *demoMIG) GetGpuInstanceId() (int, nvml.Return) { return m.slice.GI, m.ret() }

// GetComputeInstanceId is its compute instance within that.
func (m *demoMIG) GetComputeInstanceId() (int, nvml.Return) { return m.slice.CI, m.ret() }

// GetName is the parent's name and the profile, as NVML names a MIG device.
func (m *demoMIG) GetName() (string, nvml.Return) {
	return m.parent.Config.Name + " MIG " + m.slice.Profile, m.ret()
}

// GetUUID is a MIG UUID, fixed by the seed.
func (m *demoMIG) GetUUID() (string, nvml.Return) { return m.uuid, m.ret() }

// GetMemoryInfo counts only what the instance's processes hold: MIG
// instances have no driver reserve of their own to show.
func (m *demoMIG) GetMemoryInfo() (nvml.Memory, nvml.Return) {
	used := uint64(m.memUsed())
	total := uint64(m.slice.Mem)
	return nvml.Memory{Total: total, Used: used, Free: total - used}, m.ret()
}

// GetMemoryInfo_v2 is the same with no reserve.
func (m *demoMIG) GetMemoryInfo_v2() (nvml.Memory_v2, nvml.Return) {
	v1, ret := m.GetMemoryInfo()
	return nvml.Memory_v2{Version: nvml.STRUCT_VERSION(nvml.Memory_v2{}, 2), Total: v1.Total, Used: v1.Used, Free: v1.Free}, ret
}

func (m *demoMIG) ret() nvml.Return {
	if m.parent.gone() {
		return nvml.ERROR_GPU_IS_LOST
	}
	return nvml.SUCCESS
}

// migMode says whether the script splits this GPU.
func (d *demoDevice) migMode() bool { return len(d.migs) > 0 }

// GetMigMode is enabled (current and pending) on a GPU the script splits.
func (d *demoDevice) GetMigMode() (int, int, nvml.Return) {
	if d.migMode() {
		return nvml.DEVICE_MIG_ENABLE, nvml.DEVICE_MIG_ENABLE, nvml.SUCCESS
	}
	return nvml.DEVICE_MIG_DISABLE, nvml.DEVICE_MIG_DISABLE, nvml.SUCCESS
}

// GetMaxMigDeviceCount is the H100's seven on a MIG GPU, else 0.
func (d *demoDevice) GetMaxMigDeviceCount() (int, nvml.Return) {
	if !d.migMode() {
		return 0, nvml.SUCCESS
	}
	return h100MaxMig, nvml.SUCCESS
}

// GetMigDeviceHandleByIndex is slice k's handle; NOT_FOUND for an empty slot.
func (d *demoDevice) GetMigDeviceHandleByIndex(k int) (nvml.Device, nvml.Return) {
	if d.gone() {
		return nil, nvml.ERROR_GPU_IS_LOST
	}
	if !d.migMode() || k < 0 || k >= h100MaxMig {
		return nil, nvml.ERROR_INVALID_ARGUMENT
	}
	if k >= len(d.migs) {
		return nil, nvml.ERROR_NOT_FOUND
	}
	return d.migs[k], nvml.SUCCESS
}

// GpmMigSampleGet records GPU instance gi's totals into sample.
func (d *demoDevice) GpmMigSampleGet(gi int, sample nvml.GpmSample) nvml.Return {
	if d.gone() {
		return nvml.ERROR_GPU_IS_LOST
	}
	return sample.MigGet(d, gi)
}

// migOf finds the slice of GPU instance gi.
func (d *demoDevice) migOf(gi int) *demoMIG {
	for _, m := range d.migs {
		if m.slice.GI == gi {
			return m
		}
	}
	return nil
}
