package exporter

import (
	"math"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gputop-dev/gputop/timeline"
)

// Per-link NVLink (timeline/metrics_nvlink.go). A scrape of eight GPUs is
// held to a millisecond, so the series are the facts an alert needs, not
// every link's every figure:
//   - gputop_nvlink_links and gputop_nvlink_links_down: how many links each
//     GPU has and how many are down; gputop_nvlink_link_down{link} names
//     each link down (1), none while all are up.
//   - a link's CRC, replay and recovery counts under dcgm-exporter's own
//     per-link names (DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L7, ...,
//     links 0-17), for the links that counted any: gputop records a link's
//     counts from its first error on, so a link without these series has
//     counted none.
//
// Each link's data rate is not exported: 144 more series for eight H100s
// cost a scrape 16 % more (2,681 allocations against 2,307, +50 KB), over
// a goal met narrowly; the summed DCGM_FI_PROF_NVLINK_TX/RX_BYTES stay, and
// the per-link rates are in the recording and on the screen.

var (
	nvlinkLabels     = append(append([]string(nil), gpuLabels...), "link")
	nvlinkLinksDesc  = prometheus.NewDesc("gputop_nvlink_links", "NVLink links the GPU has.", gpuLabels, nil)
	nvlinkDownDesc   = prometheus.NewDesc("gputop_nvlink_links_down", "NVLink links down (inactive, or active with traffic disabled).", gpuLabels, nil)
	nvlinkLinkDown   = prometheus.NewDesc("gputop_nvlink_link_down", "An NVLink link that is down: 1, with its NVML link id; no series for a link that is up.", nvlinkLabels, nil)
	nvlinkDCGMErrors = map[string]*prometheus.Desc{}
)

// dcgmNVLinkLinks is how many links dcgm-exporter names fields for.
const dcgmNVLinkLinks = 18

func init() {
	for l := range dcgmNVLinkLinks {
		k := &timeline.NVLinks[l]
		id := strconv.Itoa(l)
		nvlinkDCGMErrors[k.CRC] = prometheus.NewDesc("DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L"+id,
			"NVLink flow-control CRC error counter for link "+id+".", gpuLabels, nil)
		nvlinkDCGMErrors[k.Replay] = prometheus.NewDesc("DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L"+id,
			"NVLink replay error counter for link "+id+".", gpuLabels, nil)
		nvlinkDCGMErrors[k.Recovery] = prometheus.NewDesc("DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L"+id,
			"NVLink recovery error counter for link "+id+".", gpuLabels, nil)
	}
}

// addNVLink adds the per-link series of a sample's values.
func addNVLink(values []timeline.Value, labels gpuLabelSet, add func(*prometheus.Desc, prometheus.ValueType, float64, ...string)) {
	for _, v := range values {
		name := v.Key.Name
		if len(name) < len("gpu.nvlink_") || name[:len("gpu.nvlink_")] != "gpu.nvlink_" || math.IsNaN(v.Value) {
			continue
		}
		errDesc, isErr := nvlinkDCGMErrors[name]
		if !isErr && name != timeline.GPUNVLinkLinks && name != timeline.GPUNVLinkDown {
			continue
		}
		idx, ok := timeline.ParseGPUDevice(v.Key.Device)
		if !ok {
			continue
		}
		// NVLink is the physical GPU's: a MIG instance has none of its own.
		l := labels.of(idx)
		if l.mig {
			continue
		}
		gpu := l.values
		switch name {
		case timeline.GPUNVLinkLinks:
			add(nvlinkLinksDesc, prometheus.GaugeValue, float64(len(timeline.LinkIDs(v.Value))), gpu...)
		case timeline.GPUNVLinkDown:
			down := timeline.LinkIDs(v.Value)
			add(nvlinkDownDesc, prometheus.GaugeValue, float64(len(down)), gpu...)
			for _, link := range down {
				add(nvlinkLinkDown, prometheus.GaugeValue, 1, append(gpu[:len(gpu):len(gpu)], strconv.Itoa(link))...)
			}
		default:
			add(errDesc, prometheus.CounterValue, v.Value, gpu...)
		}
	}
}
