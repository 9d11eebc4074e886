package timeline

// Series is the catalogue's Prometheus column for one of gputop's metrics:
// the name it goes out under (`gputop serve`, `--listen`) and comes back
// from (`gputop import prometheus`), dcgm-exporter's where the quantity and
// its meaning are the same and gputop's own otherwise, and the scale
// between gputop's unit and the exported one. One table, read both ways,
// so that what the exporter writes the importer reads back unchanged.
type Series struct {
	// Name is the exported name: DCGM_FI_DEV_FB_USED, gputop_pcie_link_gen.
	Name string
	// Help is the exported help text: dcgm-exporter's for its names.
	Help string
	// Scale turns gputop's value into the exported one: 1/MiB for
	// dcgm-exporter's MiB, 0.01 for its 0-1 ratios, 1e6 for its
	// microseconds. The importer divides by it.
	Scale float64
	// Counter says the series is a Prometheus counter (errors so far, the
	// energy counter), else a gauge.
	Counter bool
	// Raw says the series carries the raw sample's value of a counter
	// (the energy in J, the violation seconds), not a display value
	// derived from it.
	Raw bool
	// ReadOnly says gputop reads the series on import but does not export
	// it: clock-event reasons, whose bits gputop keeps in its own order.
	ReadOnly bool
}

const mib = 1 << 20

// series is the Prometheus column of the catalogue, by gputop's metric
// name. Names, units and help texts are dcgm-exporter's (docs/metrics.md
// sets them side by side).
var series = map[string]Series{
	GPUUtil:        {Name: "DCGM_FI_DEV_GPU_UTIL", Help: "GPU utilization (in %).", Scale: 1},
	GPUMemUtil:     {Name: "DCGM_FI_DEV_MEM_COPY_UTIL", Help: "Memory utilization (in %).", Scale: 1},
	GPUMemUsed:     {Name: "DCGM_FI_DEV_FB_USED", Help: "Framebuffer memory used (in MiB).", Scale: 1.0 / mib},
	GPUMemTotal:    {Name: "DCGM_FI_DEV_FB_TOTAL", Help: "Framebuffer memory total (in MiB).", Scale: 1.0 / mib},
	GPUMemFree:     {Name: "DCGM_FI_DEV_FB_FREE", Help: "Framebuffer memory free (in MiB).", Scale: 1.0 / mib},
	GPUPower:       {Name: "DCGM_FI_DEV_POWER_USAGE", Help: "Power draw (in W).", Scale: 1},
	GPUPowerLimit:  {Name: "DCGM_FI_DEV_ENFORCED_POWER_LIMIT", Help: "Enforced power limit (in W).", Scale: 1},
	GPUTemp:        {Name: "DCGM_FI_DEV_GPU_TEMP", Help: "GPU temperature (in C).", Scale: 1},
	GPUClockSM:     {Name: "DCGM_FI_DEV_SM_CLOCK", Help: "SM clock frequency (in MHz).", Scale: 1},
	GPUClockMem:    {Name: "DCGM_FI_DEV_MEM_CLOCK", Help: "Memory clock frequency (in MHz).", Scale: 1},
	GPUSMActive:    {Name: "DCGM_FI_PROF_SM_ACTIVE", Help: "The ratio of cycles an SM has at least 1 warp assigned (ratio 0-1).", Scale: 0.01},
	GPUSMOccupancy: {Name: "DCGM_FI_PROF_SM_OCCUPANCY", Help: "The ratio of number of warps resident on an SM (ratio 0-1).", Scale: 0.01},
	GPUTensor:      {Name: "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", Help: "Ratio of cycles the tensor (HMMA) pipe is active (ratio 0-1).", Scale: 0.01},
	GPUDRAMBW:      {Name: "DCGM_FI_PROF_DRAM_ACTIVE", Help: "Ratio of cycles the device memory interface is active sending or receiving data (ratio 0-1).", Scale: 0.01},
	// dcgm-exporter's list declares these two counters, but their values
	// are rates (bytes/s), as here: a gauge says what they are.
	GPUPCIeTx:  {Name: "DCGM_FI_PROF_PCIE_TX_BYTES", Help: "The rate of data transmitted over the PCIe bus, device to host (in bytes/s).", Scale: 1},
	GPUPCIeRx:  {Name: "DCGM_FI_PROF_PCIE_RX_BYTES", Help: "The rate of data received over the PCIe bus, host to device (in bytes/s).", Scale: 1},
	GPUUtilMin: {Name: "gputop_gpu_util_min_percent", Help: "Lowest of NVML's sub-second utilization samples since they were last read (every 10 s on a GPU) (in %).", Scale: 1},
	GPUUtilMax: {Name: "gputop_gpu_util_max_percent", Help: "Highest of NVML's sub-second utilization samples since they were last read (every 10 s on a GPU) (in %).", Scale: 1},
	// A counter without _total: OpenMetrics then calls it unknown, and
	// keeps dcgm-exporter's name. mJ since the driver loaded; gputop keeps J.
	GPUEnergy:   {Name: "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", Help: "Total energy consumption since boot (in mJ).", Scale: 1000, Counter: true, Raw: true},
	GPUThrottle: {Name: "DCGM_FI_DEV_CLOCKS_EVENT_REASONS", Help: "Current clock event reasons (bitmask).", Scale: 1, ReadOnly: true},

	// The links and health metrics (metrics_health.go), under dcgm-exporter's
	// names where it has one with the same meaning and unit, and under
	// gputop's own where gputop sums what DCGM keeps apart (retired pages,
	// remapped rows, NVLink errors) or DCGM's name is not certain (the PCIe
	// link's generation and width). DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL is
	// left out: its unit is DCGM's bandwidth counter, not bytes; the NVLink
	// rates go out as DCGM_FI_PROF_NVLINK_TX/RX_BYTES, bytes/s, as the PCIe
	// ones.
	GPUXid:               {Name: "DCGM_FI_DEV_XID_ERRORS", Help: "Value of the last XID error encountered.", Scale: 1},
	GPUPCIeReplays:       {Name: "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", Help: "Total number of PCIe retries.", Scale: 1, Counter: true},
	GPUECCCorrected:      {Name: "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", Help: "Total number of single-bit volatile ECC errors.", Scale: 1, Counter: true},
	GPUECCUncorrected:    {Name: "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", Help: "Total number of double-bit volatile ECC errors.", Scale: 1, Counter: true},
	GPUECCCorrectedAgg:   {Name: "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", Help: "Total number of single-bit persistent ECC errors.", Scale: 1, Counter: true},
	GPUECCUncorrectedAgg: {Name: "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", Help: "Total number of double-bit persistent ECC errors.", Scale: 1, Counter: true},
	GPUNVLinkTx:          {Name: "DCGM_FI_PROF_NVLINK_TX_BYTES", Help: "The rate of data transmitted over NVLink, all links (in bytes/s).", Scale: 1},
	GPUNVLinkRx:          {Name: "DCGM_FI_PROF_NVLINK_RX_BYTES", Help: "The rate of data received over NVLink, all links (in bytes/s).", Scale: 1},
	GPURetiredPages:      {Name: "gputop_retired_pages", Help: "Pages retired for single- and double-bit ECC errors.", Scale: 1, Counter: true},
	GPURemappedRows:      {Name: "gputop_remapped_rows", Help: "Rows remapped for correctable and uncorrectable ECC errors.", Scale: 1, Counter: true},
	GPUNVLinkErrors:      {Name: "gputop_nvlink_errors", Help: "NVLink CRC, replay and recovery errors of every link.", Scale: 1, Counter: true},
	GPUPCIeGen:           {Name: "gputop_pcie_link_gen", Help: "PCIe generation the link runs at now.", Scale: 1},
	GPUPCIeGenMax:        {Name: "gputop_pcie_link_gen_max", Help: "Highest PCIe generation the GPU and its slot allow.", Scale: 1},
	GPUPCIeWidth:         {Name: "gputop_pcie_link_width", Help: "PCIe lanes the link has now.", Scale: 1},
	GPUPCIeWidthMax:      {Name: "gputop_pcie_link_width_max", Help: "PCIe lanes the link can have.", Scale: 1},
}

func init() {
	// The violation counters: seconds in gputop, microseconds in DCGM.
	for _, v := range Violations {
		series[v.Counter] = Series{Name: v.DCGM, Help: "Throttling duration (in us).", Scale: 1e6, Counter: true, Raw: true}
	}
}

// SeriesOf returns the Prometheus series of one of gputop's metrics, and
// false for one that has none (host metrics, per-link NVLink figures,
// whose names are made per link).
func SeriesOf(name string) (Series, bool) {
	s, ok := series[name]
	return s, ok
}

// EachSeries calls fn with every metric that has a Prometheus series, in
// no particular order.
func EachSeries(fn func(metric string, s Series)) {
	for name, s := range series {
		fn(name, s)
	}
}
