package demo

import (
	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
)

// demoLib is go-nvml's dgxh100 mock server as the demo hands it to the NVML
// probe. The demo sets every metric function the probe calls on the server
// and its devices, so the bare server answers too (tests call it directly).
// The handles this library returns, though, call the demo's methods without
// going through the mock's wrappers: those append every call they receive to
// a slice they never trim, which in a demo left running for days would grow
// without end (GpmMetricsGet's argument alone is 23 KB).
type demoLib struct {
	*server.Server
	demo *Node
}

// DeviceGetHandleByIndex returns the demo's handle for GPU i.
func (l *demoLib) DeviceGetHandleByIndex(i int) (nvml.Device, nvml.Return) {
	if i < 0 || i >= len(l.demo.devices) {
		return nil, nvml.ERROR_INVALID_ARGUMENT
	}
	return l.demo.devices[i], nvml.SUCCESS
}

// DeviceGetHandleByUUID returns the demo's handle for a GPU's UUID.
func (l *demoLib) DeviceGetHandleByUUID(uuid string) (nvml.Device, nvml.Return) {
	for _, d := range l.demo.devices {
		if d.UUID == uuid {
			return d, nvml.SUCCESS
		}
	}
	return nil, nvml.ERROR_INVALID_ARGUMENT
}

// GpmSampleAlloc allocates a GPM sample buffer.
func (l *demoLib) GpmSampleAlloc() (nvml.GpmSample, nvml.Return) { return l.demo.gpmSampleAlloc() }

// GpmSampleFree frees one.
func (l *demoLib) GpmSampleFree(s nvml.GpmSample) nvml.Return { return s.Free() }

// GpmSampleGet records dev's state into s.
func (l *demoLib) GpmSampleGet(dev nvml.Device, s nvml.GpmSample) nvml.Return { return s.Get(dev) }

// GpmMigSampleGet records GPU instance gi of dev into s.
func (l *demoLib) GpmMigSampleGet(dev nvml.Device, gi int, s nvml.GpmSample) nvml.Return {
	return s.MigGet(dev, gi)
}

// GpmMetricsGet computes GPM metrics between two samples.
func (l *demoLib) GpmMetricsGet(m *nvml.GpmMetricsGetType) nvml.Return {
	return l.demo.gpmMetricsGet(m)
}

// EventSetCreate makes an event set over the scenario's Xids.
func (l *demoLib) EventSetCreate() (nvml.EventSet, nvml.Return) { return l.demo.eventSetCreate() }

// GpmQueryDeviceSupport says whether dev has GPM: every demo GPU does.
func (l *demoLib) GpmQueryDeviceSupport(dev nvml.Device) (nvml.GpmSupport, nvml.Return) {
	return dev.GpmQueryDeviceSupport()
}

// setFuncs points the mock server's metric functions at the demo.
func (d *Node) setFuncs() {
	s := d.server
	s.GpmSampleAllocFunc = d.gpmSampleAlloc
	s.GpmMetricsGetFunc = d.gpmMetricsGet
	s.GpmSampleGetFunc = func(dev nvml.Device, smp nvml.GpmSample) nvml.Return { return smp.Get(dev) }
	s.GpmSampleFreeFunc = func(smp nvml.GpmSample) nvml.Return { return smp.Free() }
	s.GpmQueryDeviceSupportFunc = func(dev nvml.Device) (nvml.GpmSupport, nvml.Return) {
		return dev.GpmQueryDeviceSupport()
	}
	s.EventSetCreateFunc = d.eventSetCreate
	for _, dd := range d.devices {
		m := dd.Device
		m.GetSamplesFunc = dd.GetSamples
		m.GetUtilizationRatesFunc = dd.GetUtilizationRates
		m.GetPciInfoFunc = dd.GetPciInfo
		m.GetMemoryInfoFunc = dd.GetMemoryInfo
		m.GetMemoryInfo_v2Func = dd.GetMemoryInfo_v2
		m.GetPowerUsageFunc = dd.GetPowerUsage
		m.GetTotalEnergyConsumptionFunc = dd.GetTotalEnergyConsumption
		m.GetEnforcedPowerLimitFunc = dd.GetEnforcedPowerLimit
		m.GetPowerManagementLimitFunc = dd.GetPowerManagementLimit
		m.GetTemperatureFunc = dd.GetTemperature
		m.GetClockInfoFunc = dd.GetClockInfo
		m.GetCurrentClocksEventReasonsFunc = dd.GetCurrentClocksEventReasons
		m.GetCurrentClocksThrottleReasonsFunc = dd.GetCurrentClocksThrottleReasons
		m.GetFieldValuesFunc = dd.GetFieldValues
		m.GpmQueryDeviceSupportFunc = dd.GpmQueryDeviceSupport
		m.GpmSampleGetFunc = dd.GpmSampleGet
		m.GetComputeRunningProcessesFunc = dd.GetComputeRunningProcesses
		m.GetGraphicsRunningProcessesFunc = dd.GetGraphicsRunningProcesses
		m.GetProcessUtilizationFunc = dd.GetProcessUtilization
		m.GetMaxPcieLinkGenerationFunc = dd.GetMaxPcieLinkGeneration
		m.GetMaxPcieLinkWidthFunc = dd.GetMaxPcieLinkWidth
		m.GetCurrPcieLinkGenerationFunc = dd.GetCurrPcieLinkGeneration
		m.GetCurrPcieLinkWidthFunc = dd.GetCurrPcieLinkWidth
		m.GetSupportedEventTypesFunc = dd.GetSupportedEventTypes
		m.RegisterEventsFunc = dd.RegisterEvents
		m.GetMaxMigDeviceCountFunc = dd.GetMaxMigDeviceCount
		m.GetMigDeviceHandleByIndexFunc = dd.GetMigDeviceHandleByIndex
		m.GpmMigSampleGetFunc = dd.GpmMigSampleGet
	}
}
