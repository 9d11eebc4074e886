package ui

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/xid"
	"github.com/gputop-dev/gputop/ui/draw"
)

// healthRow is the detail pane's row about the selected GPU's hardware
// at the cursor, after lead: its last Xid, whether it is lost, its PCIe
// link where it runs below what it can, ECC and link error counts that
// are not zero, and the share of time its clocks were held back for each
// reason (NVML's violation counters, not only the reasons set now); in
// the warning's ink where any of it is bad. Empty when there is nothing to
// say: a healthy GPU keeps the plot's rows.
func (m *Model) healthRow(lead, dev string, at time.Time) string {
	val := func(name string) float64 { return m.value(name, dev, at) }
	var parts []string
	bad := false
	if idx, ok := timeline.ParseGPUDevice(dev); ok {
		last := ""
		for _, mk := range m.store.Markers() {
			if mk.At.After(at) {
				break
			}
			if g, _, ok := xid.ParseMarker(mk.Text); ok && mk.Origin == timeline.XidOrigin && g == idx {
				last = strings.TrimPrefix(mk.Text, "GPU"+strconv.Itoa(idx)+" ")
			}
		}
		if last != "" {
			parts, bad = append(parts, last), true
		}
	}
	if m.store.Lost(dev, at) {
		parts, bad = append(parts, "lost: not answering NVML"), true
	}
	gen, genMax, width, widthMax := val(timeline.GPUPCIeGen), val(timeline.GPUPCIeGenMax), val(timeline.GPUPCIeWidth), val(timeline.GPUPCIeWidthMax)
	// A generation below the maximum at idle is NVIDIA's power saving; a
	// narrower link, or a slower one while working, is a finding.
	working := val(timeline.GPUUtil) >= 50
	if width < widthMax || working && gen < genMax {
		parts = append(parts, fmt.Sprintf("PCIe Gen%.0f x%.0f of Gen%.0f x%.0f", gen, width, genMax, widthMax))
		bad = true
	}
	for _, c := range []struct{ name, label string }{
		{timeline.GPUECCUncorrected, "ECC uncorrected"},
		{timeline.GPUECCCorrected, "ECC corrected"},
		{timeline.GPURemappedRows, "remapped rows"},
		{timeline.GPURetiredPages, "retired pages"},
		{timeline.GPUPCIeReplays, "PCIe replays"},
		{timeline.GPUNVLinkErrors, "NVLink errors"},
	} {
		// Where the links are kept apart, each erring one is named below.
		if c.name == timeline.GPUNVLinkErrors && !math.IsNaN(val(timeline.GPUNVLinkErrLinks)) {
			continue
		}
		if v := val(c.name); v > 0 {
			parts = append(parts, fmt.Sprintf("%s %.0f", c.label, v))
			bad = bad || c.name == timeline.GPUECCUncorrected
		}
	}
	// Which NVLink links are down or counted errors, by id: the detail
	// pane's link row (nvlinkRow) shows more where it fits.
	for _, l := range timeline.LinkIDs(val(timeline.GPUNVLinkDown)) {
		parts, bad = append(parts, fmt.Sprintf("NVLink %d down", l)), true
	}
	for _, l := range timeline.LinkIDs(val(timeline.GPUNVLinkErrLinks)) {
		k := &timeline.NVLinks[l]
		if n := val(k.CRC) + val(k.Replay) + val(k.Recovery); n > 0 {
			parts = append(parts, fmt.Sprintf("NVLink %d errors %.0f", l, n))
		}
	}
	var held []string
	for _, v := range timeline.Violations {
		if share := val(v.Share); share >= 0.5 && !math.IsNaN(share) {
			held = append(held, v.Label+" "+strings.TrimSpace(draw.Pct(min(share, 100))))
		}
	}
	if len(held) > 0 {
		parts = append(parts, "clocks held: "+strings.Join(held, ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	k := m.theme.Dim
	if bad {
		k = m.theme.Warn
	}
	return m.newLine(m.width).Add(" "+lead+strings.Join(parts, " · "), k).String()
}
