package report

import (
	"math"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/xid"
)

// GPUHealth is a GPU's links and health: in the report over the session, in
// a snapshot at its instant. A figure the GPU does not report is null.
type GPUHealth struct {
	// The PCIe link: in the report, the lowest generation while the GPU
	// worked (utilisation 50 % or more; it drops at idle to save power) and
	// the narrowest width seen, against the maximum.
	PCIeGen      Number `json:"pcie_gen"`
	PCIeGenMax   Number `json:"pcie_gen_max"`
	PCIeWidth    Number `json:"pcie_width"`
	PCIeWidthMax Number `json:"pcie_width_max"`
	PCIeReplays  Number `json:"pcie_replays"`
	// Counts since the driver loaded (the report's are the last seen).
	ECCCorrected      Number `json:"ecc_corrected"`
	ECCUncorrected    Number `json:"ecc_uncorrected"`
	ECCCorrectedAgg   Number `json:"ecc_corrected_lifetime"`
	ECCUncorrectedAgg Number `json:"ecc_uncorrected_lifetime"`
	RetiredPages      Number `json:"retired_pages"`
	RemappedRows      Number `json:"remapped_rows"`
	NVLinkErrors      Number `json:"nvlink_errors"`
	// NVLink data rates, all links (the report's are means).
	NVLinkTx Number `json:"nvlink_tx_bytes_per_s"`
	NVLinkRx Number `json:"nvlink_rx_bytes_per_s"`
	// NVLinks are the GPU's NVLink links, by NVML link id; absent on a
	// GPU without NVLink or a recording from before they were kept.
	NVLinks []LinkHealth `json:"nvlinks,omitempty"`
	// LastXid is the last Xid the driver reported (0 for none, null when
	// not watched).
	LastXid Number `json:"last_xid"`
	// ClocksHeld is the share of the time (and, in the report, the seconds)
	// the clocks were held back for each reason NVML counts, from its
	// violation counters; only reasons that held them at all.
	ClocksHeld []ClocksHeld `json:"clocks_held"`
}

// ClocksHeld is one reason's hold on a GPU's clocks.
type ClocksHeld struct {
	Reason  string `json:"reason"` // "power", "thermal", "sync boost", ...
	Share   Number `json:"share"`  // 0-1
	Seconds Number `json:"seconds,omitempty"`
}

// healthCounts are the figures read as their last (or, for the link, worst)
// value, with their field in GPUHealth: every Number of it, which HealthAt
// and health each write.
var healthCounts = []struct {
	name  string
	field func(h *GPUHealth) *Number
}{
	{timeline.GPUPCIeReplays, func(h *GPUHealth) *Number { return &h.PCIeReplays }},
	{timeline.GPUECCCorrected, func(h *GPUHealth) *Number { return &h.ECCCorrected }},
	{timeline.GPUECCUncorrected, func(h *GPUHealth) *Number { return &h.ECCUncorrected }},
	{timeline.GPUECCCorrectedAgg, func(h *GPUHealth) *Number { return &h.ECCCorrectedAgg }},
	{timeline.GPUECCUncorrectedAgg, func(h *GPUHealth) *Number { return &h.ECCUncorrectedAgg }},
	{timeline.GPURetiredPages, func(h *GPUHealth) *Number { return &h.RetiredPages }},
	{timeline.GPURemappedRows, func(h *GPUHealth) *Number { return &h.RemappedRows }},
	{timeline.GPUNVLinkErrors, func(h *GPUHealth) *Number { return &h.NVLinkErrors }},
	{timeline.GPUXid, func(h *GPUHealth) *Number { return &h.LastXid }},
	{timeline.GPUPCIeGenMax, func(h *GPUHealth) *Number { return &h.PCIeGenMax }},
	{timeline.GPUPCIeWidthMax, func(h *GPUHealth) *Number { return &h.PCIeWidthMax }},
	{timeline.GPUNVLinkTx, func(h *GPUHealth) *Number { return &h.NVLinkTx }},
	{timeline.GPUNVLinkRx, func(h *GPUHealth) *Number { return &h.NVLinkRx }},
	{timeline.GPUPCIeGen, func(h *GPUHealth) *Number { return &h.PCIeGen }},
	{timeline.GPUPCIeWidth, func(h *GPUHealth) *Number { return &h.PCIeWidth }},
}

// orNil is h where the GPU reported any of it, else nil: a GPU without
// any (an import, an old recording) has no health in the report.
func (h *GPUHealth) orNil() *GPUHealth {
	for _, c := range healthCounts {
		if !(*c.field(h)).Unknown() {
			return h
		}
	}
	if len(h.ClocksHeld) > 0 || len(h.NVLinks) > 0 {
		return h
	}
	return nil
}

// HealthAt is a GPU's health at a snapshot's instant; nil without any.
func HealthAt(v func(name string) Number) *GPUHealth {
	h := &GPUHealth{ClocksHeld: []ClocksHeld{}}
	for _, c := range healthCounts {
		*c.field(h) = v(c.name)
	}
	h.NVLinks = linkHealth(float64(v(timeline.GPUNVLinkLinks)), float64(v(timeline.GPUNVLinkDown)),
		float64(v(timeline.GPUNVLinkErrLinks)), func(name string, _ bool) Number { return v(name) })
	for _, vi := range timeline.Violations {
		if s := v(vi.Share); !s.Unknown() && s > 0 {
			h.ClocksHeld = append(h.ClocksHeld, ClocksHeld{Reason: vi.Label, Share: s / 100})
		}
	}
	return h.orNil()
}

// health is a GPU's health over the report's span; nil without any.
func (b *repBuilder) health(dev string) *GPUHealth {
	h := &GPUHealth{ClocksHeld: []ClocksHeld{}}
	for _, c := range healthCounts {
		var v float64
		switch c.name {
		case timeline.GPUNVLinkTx, timeline.GPUNVLinkRx:
			v, _ = b.whole(c.name, dev)
		case timeline.GPUPCIeWidth:
			v = lowest(b.load(0, c.name, dev).v, nil)
		case timeline.GPUPCIeGen:
			r := b.load(0, c.name, dev)
			v = lowest(r.v, workingAt(r.at, b.load(1, timeline.GPUUtil, dev)))
		default:
			// A count's last reading: read back from the end, not a day.
			v = b.s.LastAt(timeline.Key{Name: c.name, Device: dev}, b.from, b.to)
		}
		*c.field(h) = Number(v)
	}
	// The Xid markers know better than gpu.xid: a GPU that falls off the
	// bus is not read again after the Xid that says so.
	if idx, ok := timeline.ParseGPUDevice(dev); ok {
		for _, m := range b.s.Markers() {
			if m.Origin != timeline.XidOrigin || m.At.Before(b.from) || m.At.After(b.to) {
				continue
			}
			if g, code, ok := xid.ParseMarker(m.Text); ok && g == idx {
				h.LastXid = Number(code)
			}
		}
	}
	h.NVLinks = b.nvlinks(dev)
	for _, vi := range timeline.Violations {
		mean, integral := b.whole(vi.Share, dev)
		share := mean / 100
		if math.IsNaN(share) || share <= 0 {
			continue
		}
		h.ClocksHeld = append(h.ClocksHeld, ClocksHeld{Reason: vi.Label, Share: Number(share),
			Seconds: Number(integral / 100)})
	}
	return h.orNil()
}

// workingAt says which of the times at (in order) the GPU worked: util, read
// over the same span, is 50 % or more at that very time. Both are in time
// order, so one walk through them matches them.
func workingAt(at []int64, util repSeries) func(i int) bool {
	j := 0
	return func(i int) bool {
		// lowest asks of every i in order, so j only moves on.
		for j < len(util.at) && util.at[j] < at[i] {
			j++
		}
		return j < len(util.at) && util.at[j] == at[i] && util.v[j] >= 50
	}
}

// lowest is the lowest known value of xs where keep says so (all, if nil).
func lowest(xs []float64, keep func(i int) bool) float64 {
	lo := math.NaN()
	for i, x := range xs {
		if math.IsNaN(x) || keep != nil && !keep(i) {
			continue
		}
		if math.IsNaN(lo) || x < lo {
			lo = x
		}
	}
	return lo
}
