package demo

import (
	"fmt"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/gpus"

	"github.com/gputop-dev/gputop/probes/mockmig"
)

// MIG as the demo answers for it. A script's layout is made real mock
// state: MIG is turned on and the GPU and compute instances created
// through the dgxh100 mock's own API (mockmig.Create), which assigns their
// ids. The mock hands out no MIG device handles, so mockmig builds them
// from those instances: ids from their GetInfo, name and memory from
// go-nvml's H100 profile table, memory used from the script's processes.
// GPM per GPU instance comes through the parent's GpmMigSampleGet.
//
// What NVML gives on a MIG GPU depends on the architecture, and the demo
// is an H100 for that reason. nvml.h (the copy in go-nvml v0.13.4-0,
// pkg/nvml/nvml.h) says of nvmlDeviceGetUtilizationRates "On MIG-enabled
// GPUs, querying device utilization rates is not currently supported", and
// the same of nvmlDeviceGetProcessUtilization; GPM, the only per-instance
// activity NVML has (nvmlGpmMigSampleGet), is "For Hopper or newer fully
// supported devices" (also in the NVML API reference,
// docs.nvidia.com/deploy/nvml-api/group__nvmlGpmFunctions.html). On an A100
// NVML shows each slice's memory and processes but not which one works:
// probes/nvidia/nvml_mig_a100_test.go runs the probe over go-nvml's A100 mock.

// migSlice is one MIG compute instance a script puts on a GPU: profiles
// from go-nvml's H100 table, and what that table says of them. Residencies
// point at a scenario's own migSlice, so the GPU instance id the mock gives
// it reaches the processes without being written down twice.
type migSlice struct {
	mockmig.Slice
	mockmig.Profile
}

// h100Slice is a slice of the H100 80GB with compute instance profile ci in
// a GPU instance of profile gi.
func h100Slice(gi, ci int) migSlice {
	s := mockmig.Slice{GIProfile: gi, CIProfile: ci}
	p, err := mockmig.ProfileOf(gpus.H100_SXM5_80GB, s)
	if err != nil {
		panic("demo: a script asks for a MIG profile the H100 has not: " + err.Error())
	}
	return migSlice{Slice: s, Profile: p}
}

// h100MaxMig is the most MIG devices an H100 can have (seven 1g slices).
const h100MaxMig = 7

// demoMIG is one slice of a GPU: the handle the probe reads and the
// ledger of its scripted work.
type demoMIG struct {
	h      *mockmig.Device
	parent *demoDevice
	slot   int
	slice  *migSlice
	totals *ledger[gpuTotals]
}

// splitMIG turns MIG on for the GPU and creates the script's layout
// through the mock; the slices' handles are the GPU's migs, in layout
// order.
func (d *demoDevice) splitMIG(layout []migSlice, n noise) error {
	want := make([]mockmig.Slice, len(layout))
	for k, s := range layout {
		want[k] = s.Slice
	}
	cis, err := mockmig.Create(d.Device, want)
	if err != nil {
		return err
	}
	handles := d.mig.Devices()
	for k := range layout {
		m := &demoMIG{parent: d, slot: k, slice: &layout[k]}
		for _, h := range handles {
			if h.ComputeInstance == cis[k] {
				m.h = h
			}
		}
		if m.h == nil {
			return fmt.Errorf("the mock lists no MIG device for %s", layout[k].Name)
		}
		a := mix(n.seed ^ mix(uint64(sDemoUUID)) ^ uint64(100+d.gpu.index*h100MaxMig+k))
		m.h.UUID = fmt.Sprintf("MIG-%08x-%04x-5%03x-%04x-%012x", a>>32, a>>16&0xffff, a&0xfff, 0x8000|a>>40&0x3fff, mix(a)&0xffffffffffff)
		m.totals = newLedger(gpuTotals{}, m.addSlot)
		d.migs = append(d.migs, m)
	}
	return nil
}

// newMIGAnswers answers the GPU's MIG enumeration from the mock's
// instances: none while MIG is off; every call GPU_IS_LOST once the GPU is
// gone; memory used from the script.
func (d *demoDevice) newMIGAnswers() {
	d.mig = mockmig.New(d.Device)
	d.mig.Parent = d
	d.mig.Fault = func(string, *mockmig.Device) nvml.Return {
		if d.gone() {
			return nvml.ERROR_GPU_IS_LOST
		}
		return nvml.SUCCESS
	}
	d.mig.Used = func(gi int) uint64 {
		if m := d.migOf(gi); m != nil {
			return uint64(m.memUsed())
		}
		return 0
	}
}

// GI is the GPU instance id the mock gave the slice.
func (m *demoMIG) GI() int { return m.h.GI() }

// CI is its compute instance id.
func (m *demoMIG) CI() int { return m.h.CI() }

// load is what the slice's work does in slot k.
func (m *demoMIG) load(k int64) gpuLoad { return m.parent.gpu.sc.migLoad(m.slot, slotOf(k)) }

func (m *demoMIG) addSlot(k int64, secs float64, t *gpuTotals) {
	l := m.load(k)
	t.SM += l.SM * secs
	t.Occupancy += l.Occupancy * secs
	t.Tensor += l.Tensor * secs
	t.DRAM += l.DRAM * secs
}

// memUsed is what the scripted processes in this slice hold.
func (m *demoMIG) memUsed() float64 {
	var used float64
	for _, p := range m.parent.gpu.sc.procs {
		for _, r := range p.On {
			if r.GPU == m.parent.gpu.index && r.MIG == m.slice {
				used += r.Mem
			}
		}
	}
	return used
}

// sliceOf is the slice a residency runs in; nil on a whole GPU.
func (d *demoDevice) sliceOf(r residency) *demoMIG {
	for _, m := range d.migs {
		if r.MIG != nil && r.MIG == m.slice {
			return m
		}
	}
	return nil
}

// migMode says whether MIG is on: the mock's own state.
func (d *demoDevice) migMode() bool {
	d.Device.RLock()
	defer d.Device.RUnlock()
	return d.Device.MigMode == nvml.DEVICE_MIG_ENABLE
}

// GetMaxMigDeviceCount is the H100's seven on a MIG GPU, else 0.
func (d *demoDevice) GetMaxMigDeviceCount() (int, nvml.Return) { return d.mig.GetMaxMigDeviceCount() }

// GetMigDeviceHandleByIndex is slice k's handle; NOT_FOUND for an empty slot.
func (d *demoDevice) GetMigDeviceHandleByIndex(k int) (nvml.Device, nvml.Return) {
	return d.mig.GetMigDeviceHandleByIndex(k)
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
		if m.GI() == gi {
			return m
		}
	}
	return nil
}
