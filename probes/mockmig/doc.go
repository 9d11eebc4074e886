// Package mockmig gives go-nvml's mock servers (dgxh100, dgxa100) the MIG
// device handles they lack.
//
// The mock servers keep real MIG state: SetMigMode, the GPU's instance
// profiles and placements, CreateGpuInstance(WithPlacement),
// GpuInstance.CreateComputeInstance, and GetInfo on both, each handing out
// the ids it counts. What they do not answer is what a monitor reads:
// GetMaxMigDeviceCount, GetMigDeviceHandleByIndex, and anything on a MIG
// device handle (its instance ids, name, UUID, memory). This package answers
// those from the mock's own GPU and compute instances, so the ids a probe
// sees are the ones the mock assigned:
//
//	Create(dev, layout) ─▶ SetMigMode, CreateGpuInstanceWithPlacement,
//	                       CreateComputeInstance (the mock's own API)
//	New(dev).Wire()     ─▶ dev.GetMaxMigDeviceCount, dev.GetMigDeviceHandleByIndex
//	                       └▶ *Device per compute instance: ids from GetInfo,
//	                          name and memory from the profile table
//
// It is shared by the demo (probes/demo) and the NVML probe's tests, and
// imports only go-nvml. Nothing here is called by gputop on a real machine.
package mockmig
