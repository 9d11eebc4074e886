package mockmig

import (
	"fmt"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
)

// Create turns MIG on for dev and creates the layout through the mock's own
// API, in order, as an administrator would with nvidia-smi: each GPU
// instance at the first of its profile's possible placements that no
// instance holds yet, then one compute instance in it. The ids are the
// mock's. It returns the compute instances in the layout's order; a layout
// that does not fit the GPU is an error.
func Create(dev *server.Device, layout []Slice) ([]*server.ComputeInstance, error) {
	if ret, _ := dev.SetMigMode(nvml.DEVICE_MIG_ENABLE); ret != nvml.SUCCESS {
		return nil, fmt.Errorf("SetMigMode: %v", retText(ret))
	}
	var out []*server.ComputeInstance
	for _, s := range layout {
		p, err := ProfileOf(dev.Config, s)
		if err != nil {
			return nil, err
		}
		giInfo, ret := dev.GetGpuInstanceProfileInfo(s.GIProfile)
		if ret != nvml.SUCCESS {
			return nil, fmt.Errorf("%s: GetGpuInstanceProfileInfo: %v", p.Name, retText(ret))
		}
		placements, ret := dev.GetGpuInstancePossiblePlacements(&giInfo)
		if ret != nvml.SUCCESS {
			return nil, fmt.Errorf("%s: GetGpuInstancePossiblePlacements: %v", p.Name, retText(ret))
		}
		place, ok := freePlacement(dev, placements)
		if !ok {
			return nil, fmt.Errorf("%s: no room left on the GPU", p.Name)
		}
		gi, ret := dev.CreateGpuInstanceWithPlacement(&giInfo, &place)
		if ret != nvml.SUCCESS {
			return nil, fmt.Errorf("%s: CreateGpuInstanceWithPlacement: %v", p.Name, retText(ret))
		}
		ciInfo, ret := gi.GetComputeInstanceProfileInfo(s.CIProfile, nvml.COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED)
		if ret != nvml.SUCCESS {
			return nil, fmt.Errorf("%s: GetComputeInstanceProfileInfo: %v", p.Name, retText(ret))
		}
		ci, ret := gi.CreateComputeInstance(&ciInfo)
		if ret != nvml.SUCCESS {
			return nil, fmt.Errorf("%s: CreateComputeInstance: %v", p.Name, retText(ret))
		}
		mci, ok := ci.(*server.ComputeInstance)
		if !ok {
			return nil, fmt.Errorf("%s: the mock made a %T, not a *server.ComputeInstance", p.Name, ci)
		}
		out = append(out, mci)
	}
	return out, nil
}

// freePlacement is the first placement that overlaps no GPU instance of dev.
// The mock lists every possible placement and checks none, so this keeps a
// layout physically possible.
func freePlacement(dev *server.Device, placements []nvml.GpuInstancePlacement) (nvml.GpuInstancePlacement, bool) {
	dev.RLock()
	defer dev.RUnlock()
	for _, p := range placements {
		free := true
		for gi := range dev.GpuInstances {
			q := gi.Info.Placement
			free = free && (p.Start+p.Size <= q.Start || q.Start+q.Size <= p.Start)
		}
		if free {
			return p, true
		}
	}
	return nvml.GpuInstancePlacement{}, false
}

// retText names a return by its number: nvml.ErrorString would call into a
// driver library there may not be.
func retText(ret nvml.Return) string { return fmt.Sprintf("NVML return %d", int32(ret)) }
