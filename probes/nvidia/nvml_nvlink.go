package nvidia

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gputop-dev/gputop/timeline"
)

// Per-link NVLink. The GPU's links are found once, at open: GetNvLinkState
// for each link id NVML can name; a link that answers is one the GPU has.
// Each tick then asks, in the health fields' one GetFieldValues (no call of
// its own), for each link: its state (FI_DEV_NVLINK_GET_STATE), its CRC,
// replay and recovery error counts (the link-scoped FI_DEV_NVLINK_ERROR_DL_*
// fields, or on older drivers the per-link _L0.._L11 fields), and its data
// sent and received (FI_DEV_NVLINK_THROUGHPUT_DATA_TX/RX scoped to the
// link). A driver that does not give the state field has it read with
// GetNvLinkState at the health pace instead (Pace.Health). What is written, and
// in which units, timeline/metrics_nvlink.go says: masks of the links down
// and of those with errors, each erring link's counts, each link's data.

// nvlinkState is a GPU's links.
type nvlinkState struct {
	links []nvLink
	mask  float64 // the links, as a bitmask
	off   bool    // GetNvLinkState failed for good: no more polling
}

type nvLink struct {
	id int
	// state is the last state GetNvLinkState gave, as NVML's link states
	// (used where the state field is not supported: polled).
	state  float64
	polled bool
	// The link's sums in healthState.sums, -1 where its field was dropped.
	stateSum, crcSum, replaySum, recoverySum int
	// erred says its error counts are written: from the first tick one of
	// them was not zero, every tick after.
	erred bool
}

// linkMetricState and the like name a link's held sums: they are never
// written under these names (timeline.NVLinks has the written ones).
func linkMetricState(l int) string { return "nvlink_state/" + strconv.Itoa(l) }

// legacyLinkField is the per-link field (link in the id) older drivers have
// for the link-scoped error field id, for links 0-11; 0 where none.
func legacyLinkField(id uint32, link int) uint32 {
	if link >= 12 {
		return 0
	}
	var low, high uint32 // the ids of links 0 and 6: the two runs are apart
	switch id {
	case nvml.FI_DEV_NVLINK_ERROR_DL_CRC:
		low, high = nvml.FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L0, nvml.FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L6
	case nvml.FI_DEV_NVLINK_ERROR_DL_REPLAY:
		low, high = nvml.FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L0, nvml.FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L6
	case nvml.FI_DEV_NVLINK_ERROR_DL_RECOVERY:
		low, high = nvml.FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L0, nvml.FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L6
	default:
		return 0
	}
	if link < 6 {
		return low + uint32(link)
	}
	return high + uint32(link-6)
}

// stateOf is NVML's link state from GetNvLinkState's answer.
func stateOf(st nvml.EnableState) float64 {
	if st == nvml.FEATURE_ENABLED {
		return nvml.NVLINK_STATE_ACTIVE
	}
	return nvml.NVLINK_STATE_INACTIVE
}

// linkDown says whether an NVML link state carries no traffic.
func linkDown(state float64) bool {
	return state == nvml.NVLINK_STATE_INACTIVE || state == nvml.NVLINK_STATE_ACTIVE_TRAFFIC_DISABLED
}

// openNVLink finds the GPU's links and adds their fields to the health
// fields; it returns the line for Checks. ErrGPULost if the GPU is gone.
func (g *gpuProbe) openNVLink() (string, error) {
	nv := &g.health.nvlink
	var down []string
	for l := 0; l < min(nvml.NVLINK_MAX_LINKS, timeline.NVLinkMaxLinks); l++ {
		st, ret := g.dev.GetNvLinkState(l)
		switch ret {
		case nvml.SUCCESS:
			if st != nvml.FEATURE_ENABLED {
				down = append(down, strconv.Itoa(l))
			}
			nv.links = append(nv.links, nvLink{id: l, state: stateOf(st)})
			nv.mask += float64(uint64(1) << l)
			continue
		case nvml.ERROR_NOT_SUPPORTED, nvml.ERROR_INVALID_ARGUMENT:
			continue // no such link
		}
		switch classify(ret) {
		case outcomeLost:
			return "", ErrGPULost
		case outcomeUnsupported:
			nv.links, nv.mask, nv.off = nil, 0, true
			return "NVLink per link: off, GetNvLinkState: " + returnText(ret), nil
		}
		// A link that failed to answer now is left out: its fields would
		// fail too, and a tick's error line each second says nothing new.
		g.n.note("%s: NVLink %d: GetNvLinkState: %s, left out", g.device, l, returnText(ret))
	}
	if len(nv.links) == 0 {
		return "NVLink: none", nil
	}
	h := &g.health
	list := h.list
	held := func(id uint32, metric func(l int) string) {
		for _, l := range nv.links {
			list = append(list, healthField{id: id, scope: uint32(l.id), metric: metric(l.id), held: true,
				legacy: legacyLinkField(id, l.id)})
		}
	}
	held(nvml.FI_DEV_NVLINK_GET_STATE, linkMetricState)
	held(nvml.FI_DEV_NVLINK_ERROR_DL_CRC, func(l int) string { return timeline.NVLinks[l].CRC })
	held(nvml.FI_DEV_NVLINK_ERROR_DL_REPLAY, func(l int) string { return timeline.NVLinks[l].Replay })
	held(nvml.FI_DEV_NVLINK_ERROR_DL_RECOVERY, func(l int) string { return timeline.NVLinks[l].Recovery })
	for _, l := range nv.links {
		k := &timeline.NVLinks[l.id]
		// KiB both ways, summed, in GiB (timeline/metrics_nvlink.go says why).
		list = append(list,
			healthField{id: nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_TX, scope: uint32(l.id), metric: k.DataGiB, kind: timeline.Counter, round: 1 << 20},
			healthField{id: nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_RX, scope: uint32(l.id), metric: k.DataGiB, kind: timeline.Counter, round: 1 << 20})
	}
	h.setFields(list)
	fact := fmt.Sprintf("NVLink: %d links", len(nv.links))
	if len(down) > 0 {
		fact += ", down: " + strings.Join(down, ", ")
	} else {
		fact += ", all up"
	}
	return fact, nil
}

// index finds each link's held sums in sums (after they were set up, or
// some dropped).
func (nv *nvlinkState) index(sums []healthSum) {
	if len(nv.links) == 0 {
		return
	}
	at := make(map[string]int, len(sums))
	for i := range sums {
		at[sums[i].metric] = i
	}
	find := func(name string) int {
		if i, ok := at[name]; ok {
			return i
		}
		return -1
	}
	for i := range nv.links {
		l := &nv.links[i]
		k := &timeline.NVLinks[l.id]
		l.stateSum, l.crcSum, l.replaySum, l.recoverySum = find(linkMetricState(l.id)), find(k.CRC), find(k.Replay), find(k.Recovery)
	}
}

// fieldDropped hears of a health field the device does not support: a
// link's state field hands the link's state over to GetNvLinkState.
func (nv *nvlinkState) fieldDropped(f healthField) {
	if f.id != nvml.FI_DEV_NVLINK_GET_STATE {
		return
	}
	for i := range nv.links {
		if nv.links[i].id == int(f.scope) {
			nv.links[i].polled = true
		}
	}
}

// nvlinkWrite writes the links' masks and the erring links' counts from
// the held sums as last read, polling GetNvLinkState (poll: at the health
// pace) for the links whose state field is not supported.
func (t *tick) nvlinkWrite(poll bool) {
	h := &t.g.health
	nv := &h.nvlink
	if len(nv.links) == 0 {
		return
	}
	poll = poll && !nv.off
	// value is a held sum's value: NaN where it did not answer when last
	// asked, ok false where its field is dropped.
	value := func(i int) (float64, bool) {
		if i < 0 {
			return 0, false
		}
		if !h.sums[i].read {
			return math.NaN(), true
		}
		return h.sums[i].sum, true
	}
	var down, erring uint64
	downKnown, errKnown, errAsked := true, true, false
	for i := range nv.links {
		l := &nv.links[i]
		state, ok := value(l.stateSum)
		if !ok {
			if !l.polled || nv.off {
				downKnown = false
			} else {
				if poll && t.lostIn == "" {
					st, ret := t.g.dev.GetNvLinkState(l.id)
					switch t.check("NVLink state", ret) {
					case outcomeOK:
						l.state = stateOf(st)
					case outcomeUnsupported:
						nv.off = true
						t.g.n.note("%s: NVLink state: GetNvLinkState: %s, no longer asked", t.g.device, returnText(ret))
					}
				}
				state = l.state
			}
		}
		if math.IsNaN(state) {
			downKnown = false
		} else if linkDown(state) {
			down |= 1 << l.id
		}
		for _, s := range []int{l.crcSum, l.replaySum, l.recoverySum} {
			v, ok := value(s)
			if !ok {
				continue
			}
			errAsked = true
			if math.IsNaN(v) {
				errKnown = false
			} else if v > 0 {
				erring |= 1 << l.id
				l.erred = true
			}
		}
	}
	t.gauge(timeline.GPUNVLinkLinks, nv.mask)
	if downKnown {
		t.gauge(timeline.GPUNVLinkDown, float64(down))
	} else {
		t.gauge(timeline.GPUNVLinkDown, math.NaN())
	}
	if errAsked {
		if errKnown {
			t.gauge(timeline.GPUNVLinkErrLinks, float64(erring))
		} else {
			t.gauge(timeline.GPUNVLinkErrLinks, math.NaN())
		}
	}
	for i := range nv.links {
		l := &nv.links[i]
		if !l.erred {
			continue
		}
		k := &timeline.NVLinks[l.id]
		for _, c := range []struct {
			sum  int
			name string
		}{{l.crcSum, k.CRC}, {l.replaySum, k.Replay}, {l.recoverySum, k.Recovery}} {
			if v, ok := value(c.sum); ok {
				t.gauge(c.name, v)
			}
		}
	}
}
