package timeline

// Metrics of a GPU's links and health: PCIe link state, NVLink traffic,
// ECC and memory repair counts, the last Xid, and the time its clocks were
// held back for each reason (NVML's violation counters). Each is absent on
// a GPU or driver that does not report it (NVLink on a PCIe-only GPU, ECC
// with ECC off).
const (
	// PCIe link (gauges).
	GPUPCIeGen      = "gpu.pcie_gen"       // PCIe generation the link runs at now
	GPUPCIeGenMax   = "gpu.pcie_gen_max"   // the highest the GPU and the slot both allow
	GPUPCIeWidth    = "gpu.pcie_width"     // lanes now
	GPUPCIeWidthMax = "gpu.pcie_width_max" // lanes the link can have
	GPUPCIeReplays  = "gpu.pcie_replays"   // PCIe replays since the driver loaded (link errors retried)

	// NVLink, all links together.
	// The NVLink counters are kept in MiB, not NVML's KiB: at tens of GB/s
	// a tick's increase in KiB is noise in its last bits, which cost a
	// recording 28 KB per GPU-hour; in MiB, 12 KB, and a rate is still
	// good to 1 MiB/s.
	GPUNVLinkTxMiB  = "gpu.nvlink_tx_mib" // counter, MiB of data sent; derives GPUNVLinkTx
	GPUNVLinkRxMiB  = "gpu.nvlink_rx_mib" // counter, MiB of data received; derives GPUNVLinkRx
	GPUNVLinkTx     = "gpu.nvlink_tx"     // bytes/s
	GPUNVLinkRx     = "gpu.nvlink_rx"     // bytes/s
	GPUNVLinkErrors = "gpu.nvlink_errors" // CRC, replay and recovery errors of every link so far

	// ECC and memory repair (gauges: counts so far).
	GPUECCCorrected      = "gpu.ecc_corrected"       // single-bit, since the driver loaded (volatile)
	GPUECCUncorrected    = "gpu.ecc_uncorrected"     // double-bit, since the driver loaded (volatile)
	GPUECCCorrectedAgg   = "gpu.ecc_corrected_agg"   // single-bit, over the GPU's life (aggregate)
	GPUECCUncorrectedAgg = "gpu.ecc_uncorrected_agg" // double-bit, over the GPU's life (aggregate)
	GPURetiredPages      = "gpu.retired_pages"       // pages retired (pre-Ampere)
	GPURemappedRows      = "gpu.remapped_rows"       // rows remapped (Ampere and newer)

	// GPUXid is the last Xid the driver reported for the GPU since gputop
	// started watching; 0 for none (dcgm-exporter's DCGM_FI_DEV_XID_ERRORS).
	GPUXid = "gpu.xid"

	// Violation counters: seconds the clocks were held back for each
	// reason since the driver loaded (counters); each derives the share of
	// the time it held them (%).
	GPUViolPowerSecs       = "gpu.viol_power_s"
	GPUViolThermalSecs     = "gpu.viol_thermal_s"
	GPUViolSyncBoostSecs   = "gpu.viol_sync_boost_s"
	GPUViolBoardLimitSecs  = "gpu.viol_board_limit_s"
	GPUViolLowUtilSecs     = "gpu.viol_low_util_s"
	GPUViolReliabilitySecs = "gpu.viol_reliability_s"
	GPUViolPower           = "gpu.viol_power"
	GPUViolThermal         = "gpu.viol_thermal"
	GPUViolSyncBoost       = "gpu.viol_sync_boost"
	GPUViolBoardLimit      = "gpu.viol_board_limit"
	GPUViolLowUtil         = "gpu.viol_low_util"
	GPUViolReliability     = "gpu.viol_reliability"
)

// Violation is one of NVML's violation counters: its raw counter, the share
// of time it derives, its name on the screen and in the report, and
// dcgm-exporter's name of the counter (its Prometheus series, series.go).
type Violation struct {
	Counter, Share, Label, DCGM string
}

// Violations lists the violation counters in the order they are shown.
var Violations = []Violation{
	{GPUViolPowerSecs, GPUViolPower, "power", "DCGM_FI_DEV_POWER_VIOLATION"},
	{GPUViolThermalSecs, GPUViolThermal, "thermal", "DCGM_FI_DEV_THERMAL_VIOLATION"},
	{GPUViolSyncBoostSecs, GPUViolSyncBoost, "sync boost", "DCGM_FI_DEV_SYNC_BOOST_VIOLATION"},
	{GPUViolBoardLimitSecs, GPUViolBoardLimit, "board limit", "DCGM_FI_DEV_BOARD_LIMIT_VIOLATION"},
	{GPUViolLowUtilSecs, GPUViolLowUtil, "low util", "DCGM_FI_DEV_LOW_UTIL_VIOLATION"},
	{GPUViolReliabilitySecs, GPUViolReliability, "reliability", "DCGM_FI_DEV_RELIABILITY_VIOLATION"},
}

func init() {
	for _, d := range []Def{
		{GPUPCIeGen, Count, "PCIe gen"},
		{GPUPCIeGenMax, Count, "PCIe gen max"},
		{GPUPCIeWidth, Count, "PCIe width"},
		{GPUPCIeWidthMax, Count, "PCIe width max"},
		{GPUPCIeReplays, Count, "PCIe replays"},
		{GPUNVLinkTx, BytesPerSec, "NVLink tx"},
		{GPUNVLinkRx, BytesPerSec, "NVLink rx"},
		{GPUNVLinkErrors, Count, "NVLink errors"},
		{GPUECCCorrected, Count, "ECC corrected"},
		{GPUECCUncorrected, Count, "ECC uncorrected"},
		{GPUECCCorrectedAgg, Count, "ECC corrected (life)"},
		{GPUECCUncorrectedAgg, Count, "ECC uncorrected (life)"},
		{GPURetiredPages, Count, "retired pages"},
		{GPURemappedRows, Count, "remapped rows"},
		{GPUXid, Count, "last Xid"},
	} {
		defs[d.Name] = d
	}
	counterRules[GPUNVLinkTxMiB] = counterRule{out: GPUNVLinkTx, scale: 1 << 20}
	counterRules[GPUNVLinkRxMiB] = counterRule{out: GPUNVLinkRx, scale: 1 << 20}
	for _, v := range Violations {
		defs[v.Share] = Def{v.Share, Percent, v.Label + " held"}
		counterRules[v.Counter] = counterRule{out: v.Share, scale: 100}
	}
}
