package exporter

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/gputop-dev/gputop/timeline"
)

// The links and health metrics (timeline/metrics_health.go), under
// dcgm-exporter's names where it has one with the same meaning and unit,
// and under gputop's own where gputop sums what DCGM keeps apart (retired
// pages, remapped rows, NVLink errors) or DCGM's name is not certain (the
// PCIe link's generation and width). DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL is
// left out: its unit is DCGM's bandwidth counter, not bytes; the NVLink
// rates go out as DCGM_FI_PROF_NVLINK_TX/RX_BYTES, bytes/s, as the PCIe ones.
func init() {
	count := func(name, help string) gpuSeries {
		return newGPUSeries(name, help, prometheus.CounterValue, 1)
	}
	gauge := func(name, help string) gpuSeries {
		return newGPUSeries(name, help, prometheus.GaugeValue, 1)
	}
	for name, s := range map[string]gpuSeries{
		timeline.GPUXid:               gauge("DCGM_FI_DEV_XID_ERRORS", "Value of the last XID error encountered."),
		timeline.GPUPCIeReplays:       count("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "Total number of PCIe retries."),
		timeline.GPUECCCorrected:      count("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "Total number of single-bit volatile ECC errors."),
		timeline.GPUECCUncorrected:    count("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "Total number of double-bit volatile ECC errors."),
		timeline.GPUECCCorrectedAgg:   count("DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", "Total number of single-bit persistent ECC errors."),
		timeline.GPUECCUncorrectedAgg: count("DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", "Total number of double-bit persistent ECC errors."),
		timeline.GPUNVLinkTx:          gauge("DCGM_FI_PROF_NVLINK_TX_BYTES", "The rate of data transmitted over NVLink, all links (in bytes/s)."),
		timeline.GPUNVLinkRx:          gauge("DCGM_FI_PROF_NVLINK_RX_BYTES", "The rate of data received over NVLink, all links (in bytes/s)."),
		timeline.GPURetiredPages:      count("gputop_retired_pages", "Pages retired for single- and double-bit ECC errors."),
		timeline.GPURemappedRows:      count("gputop_remapped_rows", "Rows remapped for correctable and uncorrectable ECC errors."),
		timeline.GPUNVLinkErrors:      count("gputop_nvlink_errors", "NVLink CRC, replay and recovery errors of every link."),
		timeline.GPUPCIeGen:           gauge("gputop_pcie_link_gen", "PCIe generation the link runs at now."),
		timeline.GPUPCIeGenMax:        gauge("gputop_pcie_link_gen_max", "Highest PCIe generation the GPU and its slot allow."),
		timeline.GPUPCIeWidth:         gauge("gputop_pcie_link_width", "PCIe lanes the link has now."),
		timeline.GPUPCIeWidthMax:      gauge("gputop_pcie_link_width_max", "PCIe lanes the link can have."),
	} {
		gpuGauges[name] = s
	}
	// The violation counters: seconds in gputop, microseconds in DCGM.
	for raw, name := range map[string]string{
		timeline.GPUViolPowerSecs:       "DCGM_FI_DEV_POWER_VIOLATION",
		timeline.GPUViolThermalSecs:     "DCGM_FI_DEV_THERMAL_VIOLATION",
		timeline.GPUViolSyncBoostSecs:   "DCGM_FI_DEV_SYNC_BOOST_VIOLATION",
		timeline.GPUViolBoardLimitSecs:  "DCGM_FI_DEV_BOARD_LIMIT_VIOLATION",
		timeline.GPUViolLowUtilSecs:     "DCGM_FI_DEV_LOW_UTIL_VIOLATION",
		timeline.GPUViolReliabilitySecs: "DCGM_FI_DEV_RELIABILITY_VIOLATION",
	} {
		gpuCounters[raw] = newGPUSeries(name, "Throttling duration (in us).", prometheus.CounterValue, 1e6)
	}
}
