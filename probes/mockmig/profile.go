package mockmig

import (
	"fmt"
	"math"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/gpus"
)

// Slice is one MIG compute instance to create: a GPU instance of a profile
// and, in it, a compute instance of a profile. A compute instance as large
// as its GPU instance (3g in 3g) is what `nvidia-smi mig -cgi 3g.40gb -C`
// makes.
type Slice struct {
	GIProfile int // nvml.GPU_INSTANCE_PROFILE_3_SLICE, ...
	CIProfile int // nvml.COMPUTE_INSTANCE_PROFILE_3_SLICE, ...
}

// Profile is what a GPU's profile table says of a Slice.
type Profile struct {
	// Name as NVML gives it after "MIG " in the device name: "3g.40gb",
	// "1c.3g.20gb" for a compute instance smaller than its GPU instance,
	// "1g.10gb+me" with the media extensions.
	Name string
	// Memory is the GPU instance's memory, shared by its compute instances.
	Memory uint64
	// SMs is the compute instance's multiprocessors; Share is their part
	// of the whole GPU's (the 7-slice profile's).
	SMs   int
	Share float64
}

// ProfileOf looks a slice up in a GPU's profile table (go-nvml's
// gpus.H100_SXM5_80GB.MIGProfiles, ...).
func ProfileOf(cfg gpus.Config, s Slice) (Profile, error) {
	gi, ok := cfg.MIGProfiles.GpuInstanceProfiles[s.GIProfile]
	if !ok {
		return Profile{}, fmt.Errorf("%s has no GPU instance profile %d", cfg.Name, s.GIProfile)
	}
	ci, ok := cfg.MIGProfiles.ComputeInstanceProfiles[s.GIProfile][s.CIProfile]
	if !ok {
		return Profile{}, fmt.Errorf("%s has no compute instance profile %d in GPU instance profile %d", cfg.Name, s.CIProfile, s.GIProfile)
	}
	whole := cfg.MIGProfiles.GpuInstanceProfiles[nvml.GPU_INSTANCE_PROFILE_7_SLICE].MultiprocessorCount
	p := Profile{Memory: gi.MemorySizeMB << 20, SMs: int(ci.MultiprocessorCount)}
	if whole > 0 {
		p.Share = float64(ci.MultiprocessorCount) / float64(whole)
	}
	p.Name = profileName(gi, ci, cfg.MemoryMB)
	return p, nil
}

// profileName names a profile the way the driver and go-nvlib's MigProfile
// do: "<c>c.<g>g.<gb>gb", the "<c>c." left out when the compute instance has
// the whole GPU instance, "+me" for the media-extension variants. The GB
// figure is the instance's share of the GPU's memory rounded up to an
// eighth, times the GPU's GB (go-nvlib, pkg/nvlib/device/mig_profile.go,
// getMigMemorySizeGB): 4864 MiB of an A100's 40 GB is "5gb", 40192 "40gb".
func profileName(gi nvml.GpuInstanceProfileInfo, ci nvml.ComputeInstanceProfileInfo, deviceMB uint64) string {
	gb := 0
	if deviceMB > 0 {
		eighths := math.Ceil(float64(gi.MemorySizeMB) / float64(deviceMB) * 8)
		deviceGB := (deviceMB + 1023) / 1024
		gb = int(math.Round(eighths / 8 * float64(deviceGB)))
	}
	name := fmt.Sprintf("%dg.%dgb", gi.SliceCount, gb)
	if ci.SliceCount != gi.SliceCount {
		name = fmt.Sprintf("%dc.%s", ci.SliceCount, name)
	}
	switch gi.Id {
	case nvml.GPU_INSTANCE_PROFILE_1_SLICE_REV1, nvml.GPU_INSTANCE_PROFILE_2_SLICE_REV1:
		name += "+me"
	}
	return name
}
