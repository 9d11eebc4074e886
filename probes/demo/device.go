package demo

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/probes/mockmig"
)

// demoDevice is one of the mock server's devices as the demo answers for it.
// Its methods are the device's metric functions: they are set as the
// server's ...Func fields, and also called directly by the handle the
// demo's library hands out (see demoLib for why).
type demoDevice struct {
	*server.Device
	gpu  *demoGPU
	time demoTime
	// mig answers the GPU's MIG enumeration from the mock's instances,
	// and migs are the slices a script split it into, in layout order
	// (mig.go); none while MIG is off.
	mig  *mockmig.GPU
	migs []*demoMIG
}

// demoTime is the demo's clock: "now" is microseconds since the demo began,
// and NVML's timestamps are microseconds since the Unix epoch.
type demoTime struct {
	clock probes.Clock
	start time.Time
}

func (t demoTime) now() int64 { return max(0, t.clock.Now().Sub(t.start).Microseconds()) }

func (t demoTime) stamp(us int64) uint64 { return uint64(t.start.UnixMicro() + us) }

// sampleBuffer is how many utilization samples NVML keeps per device; an
// older lastSeen gets only these.
const sampleBuffer = 120

// GetSamples returns one sample per slot that ended after lastSeen: every
// 1/6 s of the script, so that a dip shorter than the tick reaches the screen.
func (d *demoDevice) GetSamples(kind nvml.SamplingType, lastSeen uint64) (nvml.ValueType, []nvml.Sample, nvml.Return) {
	if d.gone() {
		return nvml.VALUE_TYPE_UNSIGNED_INT, nil, nvml.ERROR_GPU_IS_LOST
	}
	var value func(*gpuState) float64
	scale := 1.0
	switch kind {
	case nvml.GPU_UTILIZATION_SAMPLES:
		value = utilOf
	case nvml.MEMORY_UTILIZATION_SAMPLES:
		value = memUtilOf
	case nvml.TOTAL_POWER_SAMPLES:
		value, scale = powerOf, 1000 // mW
	default:
		return nvml.VALUE_TYPE_UNSIGNED_INT, nil, nvml.ERROR_NOT_SUPPORTED
	}
	done := slotAt(d.time.now()) // slots [0, done) have ended
	first := max(0, done-sampleBuffer)
	if since := int64(lastSeen) - int64(d.time.stamp(0)); lastSeen > 0 && since >= 0 {
		// Slot j's sample is stamped at its end, slotStart(j+1): it is newer
		// than lastSeen from slot slotAt(since) on.
		first = max(first, slotAt(since))
	}
	if first >= done {
		return nvml.VALUE_TYPE_UNSIGNED_INT, nil, nvml.ERROR_NOT_FOUND
	}
	samples := make([]nvml.Sample, 0, done-first)
	for k := first; k < done; k++ {
		s := d.gpu.state(k)
		smp := nvml.Sample{TimeStamp: d.time.stamp(slotStart(k + 1))}
		binary.LittleEndian.PutUint32(smp.SampleValue[:], uint32(math.Round(value(&s)*scale)))
		samples = append(samples, smp)
	}
	return nvml.VALUE_TYPE_UNSIGNED_INT, samples, nvml.SUCCESS
}

// GetUtilizationRates averages the last second's slots.
func (d *demoDevice) GetUtilizationRates() (nvml.Utilization, nvml.Return) {
	if d.gone() {
		return nvml.Utilization{}, nvml.ERROR_GPU_IS_LOST
	}
	us := d.time.now()
	return nvml.Utilization{
		Gpu:    uint32(math.Round(d.gpu.lastSecond(us, utilOf))),
		Memory: uint32(math.Round(d.gpu.lastSecond(us, memUtilOf))),
	}, nvml.SUCCESS
}

// dgxH100BusIDs are the PCI bus ids of a DGX H100's eight GPUs, in NVML
// index order, as nvidia-smi shows them on one.
var dgxH100BusIDs = [8]string{
	"00000000:18:00.0", "00000000:2A:00.0", "00000000:3A:00.0", "00000000:5D:00.0",
	"00000000:9A:00.0", "00000000:AB:00.0", "00000000:BA:00.0", "00000000:DB:00.0",
}

// GetPciInfo gives the GPU's bus id (the mock's own PciInfo has none).
func (d *demoDevice) GetPciInfo() (nvml.PciInfo, nvml.Return) {
	p := nvml.PciInfo{PciDeviceId: d.Config.PciDeviceId}
	id := dgxH100BusIDs[d.Index%len(dgxH100BusIDs)]
	for i := range len(id) {
		p.BusId[i] = int8(id[i])
	}
	return p, nvml.SUCCESS
}

// GetMemoryInfo counts the driver's reserved memory as used, as NVML's v1 does.
func (d *demoDevice) GetMemoryInfo() (nvml.Memory, nvml.Return) {
	total := d.MemoryInfo.Total
	used := uint64(d.gpu.memUsed) + h100Reserved
	return nvml.Memory{Total: total, Free: total - used, Used: used}, nvml.SUCCESS
}

// GetMemoryInfo_v2 reports the reserved memory apart from what processes use.
func (d *demoDevice) GetMemoryInfo_v2() (nvml.Memory_v2, nvml.Return) {
	if d.gone() {
		return nvml.Memory_v2{}, nvml.ERROR_GPU_IS_LOST
	}
	total := d.MemoryInfo.Total
	used := uint64(d.gpu.memUsed)
	return nvml.Memory_v2{
		Version:  nvml.STRUCT_VERSION(nvml.Memory_v2{}, 2),
		Total:    total,
		Reserved: h100Reserved,
		Free:     total - h100Reserved - used,
		Used:     used,
	}, nvml.SUCCESS
}

// GetPowerUsage is the last second's average in mW, as on recent GPUs; it
// agrees with the energy counter's difference over the same second.
func (d *demoDevice) GetPowerUsage() (uint32, nvml.Return) {
	return uint32(math.Round(d.gpu.lastSecond(d.time.now(), powerOf) * 1000)), nvml.SUCCESS
}

// GetTotalEnergyConsumption is the energy counter in mJ: the integral of the
// scripted power, plus the driver's uptime before the demo.
func (d *demoDevice) GetTotalEnergyConsumption() (uint64, nvml.Return) {
	return uint64(d.gpu.totals.at(d.time.now()).Energy * 1000), nvml.SUCCESS
}

// GetEnforcedPowerLimit is the H100 SXM5's 700 W, in mW.
func (d *demoDevice) GetEnforcedPowerLimit() (uint32, nvml.Return) {
	return h100PowerLimit * 1000, nvml.SUCCESS
}

// GetPowerManagementLimit is the configured limit: the same 700 W.
func (d *demoDevice) GetPowerManagementLimit() (uint32, nvml.Return) {
	return h100PowerLimit * 1000, nvml.SUCCESS
}

// GetTemperature answers for the GPU die; other sensors are not scripted.
func (d *demoDevice) GetTemperature(sensor nvml.TemperatureSensors) (uint32, nvml.Return) {
	if sensor != nvml.TEMPERATURE_GPU {
		return 0, nvml.ERROR_NOT_SUPPORTED
	}
	return uint32(math.Round(d.gpu.totals.at(d.time.now()).Temp)), nvml.SUCCESS
}

// GetClockInfo answers for the SM (= graphics) and memory clocks.
func (d *demoDevice) GetClockInfo(clock nvml.ClockType) (uint32, nvml.Return) {
	switch clock {
	case nvml.CLOCK_SM, nvml.CLOCK_GRAPHICS:
		s, _ := d.gpu.now(d.time.now())
		return uint32(s.ClockSM), nvml.SUCCESS
	case nvml.CLOCK_MEM:
		return h100MemMHz, nvml.SUCCESS
	}
	return 0, nvml.ERROR_NOT_SUPPORTED
}

// GetCurrentClocksEventReasons is the bitmask of what holds the clocks now.
func (d *demoDevice) GetCurrentClocksEventReasons() (uint64, nvml.Return) {
	s, _ := d.gpu.now(d.time.now())
	return s.Reasons, nvml.SUCCESS
}

// GetCurrentClocksThrottleReasons is the older name of GetCurrentClocksEventReasons.
func (d *demoDevice) GetCurrentClocksThrottleReasons() (uint64, nvml.Return) {
	return d.GetCurrentClocksEventReasons()
}

// GetFieldValues answers the PCIe byte counters; other fields say
// NOT_SUPPORTED in their own NvmlReturn, as the driver does.
func (d *demoDevice) GetFieldValues(values []nvml.FieldValue) nvml.Return {
	if len(values) == 0 {
		return nvml.ERROR_INVALID_ARGUMENT
	}
	if d.gone() {
		return nvml.ERROR_GPU_IS_LOST
	}
	us := d.time.now()
	t := d.gpu.totals.at(us)
	for i := range values {
		v := &values[i]
		v.Timestamp, v.LatencyUsec = int64(d.time.stamp(us)), 0
		var bytes float64
		switch v.FieldId {
		case nvml.FI_DEV_PCIE_COUNT_TX_BYTES:
			bytes = t.Tx
		case nvml.FI_DEV_PCIE_COUNT_RX_BYTES:
			bytes = t.Rx
		default:
			var ret nvml.Return
			bytes, ret = d.healthField(v, t)
			if ret != nvml.SUCCESS {
				v.NvmlReturn = uint32(ret)
				continue
			}
		}
		v.ValueType = uint32(nvml.VALUE_TYPE_UNSIGNED_LONG_LONG)
		v.NvmlReturn = uint32(nvml.SUCCESS)
		binary.LittleEndian.PutUint64(v.Value[:], uint64(bytes))
	}
	return nvml.SUCCESS
}

// GpmQueryDeviceSupport says yes: the H100 is a Hopper.
func (d *demoDevice) GpmQueryDeviceSupport() (nvml.GpmSupport, nvml.Return) {
	return nvml.GpmSupport{Version: nvml.GPM_SUPPORT_VERSION, IsSupportedDevice: 1}, nvml.SUCCESS
}

// GpmSampleGet records this device's totals into sample, as NVML's
// device-level call does through the sample.
func (d *demoDevice) GpmSampleGet(sample nvml.GpmSample) nvml.Return {
	if d.gone() {
		return nvml.ERROR_GPU_IS_LOST
	}
	if d.migMode() {
		// In MIG mode the demo's driver gives GPM per GPU instance only.
		return nvml.ERROR_NOT_SUPPORTED
	}
	return sample.Get(d)
}
