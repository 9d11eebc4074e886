package timeline

import (
	"math"
	"strconv"
)

// Per-link NVLink metrics of a GPU (device "gpuN"). They sit beside the
// summed NVLink metrics of metrics_health.go, which stay as they were.
//
// What is kept, and why: a recording pays about a bit a tick for every key
// even when its value stands still (measured: eighteen per-link state
// gauges cost 5 KB per GPU-hour), so the facts that stand still on a
// healthy GPU are kept per GPU, as bitmasks of link ids, and the per-link
// keys are those that move or that only a failing link needs:
//   - GPUNVLinkLinks: the links the GPU has; GPUNVLinkDown: those down
//     (NVML's state inactive, or active with traffic disabled); 0 when all
//     are up. Gauges, like GPUThrottle.
//   - GPUNVLinkErrLinks: the links whose CRC, replay or recovery count is
//     not zero. Only for those links are the counts themselves kept,
//     "gpu.nvlink_l7_crc", "_replay", "_recovery" (gauges, counts since the
//     driver loaded, written every tick from the first that counts one):
//     a link of GPUNVLinkLinks without them has counted none, while the
//     mask is known.
//   - "gpu.nvlink_l7_data_gib": the link's data both ways (tx + rx), a
//     counter in GiB, deriving "gpu.nvlink_l7_data" (bytes/s). In NVML's KiB,
//     or in MiB as the summed counters, eighteen links would cost more than
//     all of a GPU's other metrics; in GiB a busy link costs about two bits
//     a tick, and its rate is good to 1 GiB/s a tick, which over a window
//     says which link carries less than its peers.
const (
	GPUNVLinkLinks    = "gpu.nvlink_links"     // bitmask of the GPU's link ids
	GPUNVLinkDown     = "gpu.nvlink_down"      // bitmask of the links down
	GPUNVLinkErrLinks = "gpu.nvlink_err_links" // bitmask of the links with errors counted

	// NVLinkMaxLinks is how many links NVML can name (NVML_NVLINK_MAX_LINKS);
	// an H100 or B200 has 18.
	NVLinkMaxLinks = 36
)

// NVLinkKeys are one link's metric names.
type NVLinkKeys struct {
	CRC, Replay, Recovery string // gauges
	DataGiB               string // counter, GiB both ways; derives Data
	Data                  string // bytes/s both ways
}

// NVLinks holds every link's names, by NVML link id.
var NVLinks [NVLinkMaxLinks]NVLinkKeys

// LinkIDs lists the link ids set in a bitmask gauge; nil when unknown.
func LinkIDs(mask float64) []int {
	if math.IsNaN(mask) || math.IsInf(mask, 0) || mask < 0 {
		return nil
	}
	m := uint64(mask)
	out := []int{}
	for l := range NVLinkMaxLinks {
		if m&(1<<l) != 0 {
			out = append(out, l)
		}
	}
	return out
}

func init() {
	defs[GPUNVLinkLinks] = Def{GPUNVLinkLinks, Bits, "NVLink links"}
	defs[GPUNVLinkDown] = Def{GPUNVLinkDown, Bits, "NVLink links down"}
	defs[GPUNVLinkErrLinks] = Def{GPUNVLinkErrLinks, Bits, "NVLink links with errors"}
	for l := range NVLinks {
		p := "gpu.nvlink_l" + strconv.Itoa(l) + "_"
		k := NVLinkKeys{CRC: p + "crc", Replay: p + "replay", Recovery: p + "recovery",
			DataGiB: p + "data_gib", Data: p + "data"}
		NVLinks[l] = k
		label := "NVLink " + strconv.Itoa(l)
		for _, d := range []Def{
			{k.CRC, Count, label + " CRC errors"},
			{k.Replay, Count, label + " replays"},
			{k.Recovery, Count, label + " recoveries"},
			{k.Data, BytesPerSec, label},
		} {
			defs[d.Name] = d
		}
		counterRules[k.DataGiB] = counterRule{out: k.Data, scale: 1 << 30}
	}
}
