package nvidia

import (
	"fmt"
	"math"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gputop-dev/gputop/timeline"
)

// A GPU's links and health, read each tick in two calls of the baseline API
// besides the PCIe link's two: one GetFieldValues for every counter below
// (each field with its own return: one the device lacks, NVLink on a
// PCIe-only GPU or ECC with ECC off, is dropped and its metric is absent),
// and GetCurrPcieLinkGeneration and GetCurrPcieLinkWidth. The link's
// maximum is read once, at open (GetMaxPcieLinkGeneration and Width).
//
// The violation counters come as fields (NVML_FI_DEV_PERF_POLICY_*) rather
// than one GetViolationStatus call per reason: the same nanosecond counters,
// six reasons in the call that is made anyway.

// healthField is one NVML field and the metric it feeds. Several fields may
// feed one metric (retired pages are single- plus double-bit): their sum.
type healthField struct {
	id     uint32
	scope  uint32 // link id for NVLink fields; allLinks sums every link
	metric string
	kind   timeline.Kind
	per    float64 // then divided by this (ms to s; 0 leaves it)
	// round, if set, first divides the value by it and rounds: the
	// violation counters count nanoseconds, and milliseconds are plenty for
	// a share of a second (nine decimals in every sample would cost a
	// recording dearly); NVLink's KiB become MiB (GiB per link). Several
	// fields of one metric are summed first, then rounded.
	round float64
	// legacy is the field asked instead if the device does not support
	// id: the per-link error counters of drivers before the link-scoped
	// fields, which exist for links 0-11 only.
	legacy uint32
	held   bool // its sum is not a metric of its own (healthSum.held)
	sum    int  // index of its metric in healthState.sums
}

// allLinks is the scopeId asking an NVLink throughput field for every link
// together (UINT_MAX, as NVML's header documents).
const allLinks = math.MaxUint32

var healthFields = []healthField{
	{id: nvml.FI_DEV_PCIE_REPLAY_COUNTER, metric: timeline.GPUPCIeReplays},
	{id: nvml.FI_DEV_ECC_SBE_VOL_TOTAL, metric: timeline.GPUECCCorrected},
	{id: nvml.FI_DEV_ECC_DBE_VOL_TOTAL, metric: timeline.GPUECCUncorrected},
	{id: nvml.FI_DEV_ECC_SBE_AGG_TOTAL, metric: timeline.GPUECCCorrectedAgg},
	{id: nvml.FI_DEV_ECC_DBE_AGG_TOTAL, metric: timeline.GPUECCUncorrectedAgg},
	{id: nvml.FI_DEV_RETIRED_SBE, metric: timeline.GPURetiredPages},
	{id: nvml.FI_DEV_RETIRED_DBE, metric: timeline.GPURetiredPages},
	{id: nvml.FI_DEV_REMAPPED_COR, metric: timeline.GPURemappedRows},
	{id: nvml.FI_DEV_REMAPPED_UNC, metric: timeline.GPURemappedRows},
	// NVLink data throughput counts KiB; kept in MiB (timeline.GPUNVLinkTxMiB says why).
	{id: nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_TX, scope: allLinks, metric: timeline.GPUNVLinkTxMiB, kind: timeline.Counter, round: 1024},
	{id: nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_RX, scope: allLinks, metric: timeline.GPUNVLinkRxMiB, kind: timeline.Counter, round: 1024},
	{id: nvml.FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL, metric: timeline.GPUNVLinkErrors},
	{id: nvml.FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL, metric: timeline.GPUNVLinkErrors},
	{id: nvml.FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL, metric: timeline.GPUNVLinkErrors},
	{id: nvml.FI_DEV_PERF_POLICY_POWER, metric: timeline.GPUViolPowerSecs, kind: timeline.Counter, round: 1e6, per: 1e3},
	{id: nvml.FI_DEV_PERF_POLICY_THERMAL, metric: timeline.GPUViolThermalSecs, kind: timeline.Counter, round: 1e6, per: 1e3},
	{id: nvml.FI_DEV_PERF_POLICY_SYNC_BOOST, metric: timeline.GPUViolSyncBoostSecs, kind: timeline.Counter, round: 1e6, per: 1e3},
	{id: nvml.FI_DEV_PERF_POLICY_BOARD_LIMIT, metric: timeline.GPUViolBoardLimitSecs, kind: timeline.Counter, round: 1e6, per: 1e3},
	{id: nvml.FI_DEV_PERF_POLICY_LOW_UTILIZATION, metric: timeline.GPUViolLowUtilSecs, kind: timeline.Counter, round: 1e6, per: 1e3},
	{id: nvml.FI_DEV_PERF_POLICY_RELIABILITY, metric: timeline.GPUViolReliabilitySecs, kind: timeline.Counter, round: 1e6, per: 1e3},
}

// healthState is what a GPU probe keeps between ticks for its links and
// health.
type healthState struct {
	// list is this GPU's fields still asked for: healthFields, then its
	// NVLink links' own (nvml_nvlink.go).
	list []healthField
	buf  []nvml.FieldValue
	sums []healthSum // one per metric, in the order they are written
	// link says the PCIe link can be read; genMax and widthMax are its
	// maximum, read at open.
	link             bool
	genMax, widthMax float64
	nvlink           nvlinkState
}

type healthSum struct {
	metric string
	kind   timeline.Kind
	round  float64
	per    float64
	sum    float64
	read   bool // a field of it answered this tick
	// held sums are not written as metrics of their own: the NVLink
	// links' states and error counts, which nvlinkWrite turns into masks.
	held bool
}

// setFields makes list the fields asked for, and sums their metrics, in
// the order of their first field.
func (h *healthState) setFields(list []healthField) {
	h.list, h.sums = list, h.sums[:0]
	at := map[string]int{}
	for i := range h.list {
		f := &h.list[i]
		k, ok := at[f.metric]
		if !ok {
			k = len(h.sums)
			at[f.metric] = k
			h.sums = append(h.sums, healthSum{metric: f.metric, kind: f.kind, round: f.round, per: f.per, held: f.held})
		}
		f.sum = k
	}
	h.nvlink.index(h.sums)
}

// openHealth reads the PCIe link's maximum and sets up the health fields;
// it returns the line for Checks. ErrGPULost if the GPU is gone.
func (g *gpuProbe) openHealth() (string, error) {
	h := &g.health
	h.setFields(append([]healthField(nil), healthFields...))
	gen, ret := g.dev.GetMaxPcieLinkGeneration()
	switch classify(ret) {
	case outcomeLost:
		return "", ErrGPULost
	case outcomeOK:
	default:
		return "PCIe link: " + returnText(ret), nil
	}
	width, ret := g.dev.GetMaxPcieLinkWidth()
	switch classify(ret) {
	case outcomeLost:
		return "", ErrGPULost
	case outcomeOK:
	default:
		return "PCIe link width: " + returnText(ret), nil
	}
	h.link, h.genMax, h.widthMax = true, float64(gen), float64(width)
	return fmt.Sprintf("PCIe Gen%d x%d at most", gen, width), nil
}

// pcieLink writes the PCIe link's generation and width now and at most.
// NVIDIA GPUs drop the generation when idle to save power: that is no
// finding by itself (the link-degraded hint judges it while busy).
func (t *tick) pcieLink() {
	h := &t.g.health
	if !h.link {
		return
	}
	if t.slow {
		// The maximum, at the health pace: a link retrained narrower
		// after a reset has a lower one.
		if g, ret := t.g.dev.GetMaxPcieLinkGeneration(); t.check("PCIe max", ret) == outcomeOK {
			if w, ret := t.g.dev.GetMaxPcieLinkWidth(); t.check("PCIe max", ret) == outcomeOK {
				h.genMax, h.widthMax = float64(g), float64(w)
			}
		}
	}
	gen, width := math.NaN(), math.NaN()
	if t.ask(callPCIeLink) {
		v, ret := t.g.dev.GetCurrPcieLinkGeneration()
		if t.ok(callPCIeLink, ret) {
			gen = float64(v)
			if w, ret := t.g.dev.GetCurrPcieLinkWidth(); t.ok(callPCIeLink, ret) {
				width = float64(w)
			}
		}
	}
	if t.g.unsupported&callPCIeLink != 0 && math.IsNaN(gen) {
		return
	}
	t.gauge(timeline.GPUPCIeGen, gen)
	t.gauge(timeline.GPUPCIeGenMax, h.genMax)
	t.gauge(timeline.GPUPCIeWidth, width)
	t.gauge(timeline.GPUPCIeWidthMax, h.widthMax)
}

// everyTick says whether a field is read at the counters' pace (every
// tick at 1 s): those that count time or bytes (violation counters, NVLink
// data), a rate from two readings in a row, and each NVLink link's state
// and errors, which link-degraded judges. The others (ECC, retired pages,
// remapped rows, PCIe replays, the NVLink error totals) count rare events
// that only the screen and the report show, and are read at the health
// pace (Pace.Health); their last reading holds between.
func everyTick(kind timeline.Kind, held bool) bool { return kind == timeline.Counter || held }

// healthFields reads the health fields due this tick in one GetFieldValues
// (the counting ones at the counters' pace, the others at the health pace
// or after an Xid) and writes the metrics they feed, and the last Xid
// where the event watcher listens. A field the device does not support is
// dropped for good (or replaced by its legacy field); one that failed
// leaves its metric NaN until it is read again.
func (t *tick) healthFields() {
	h := &t.g.health
	if t.g.xidWatched.Load() {
		t.gauge(timeline.GPUXid, float64(t.g.xid.Load()))
	}
	if len(h.list) == 0 || !t.ask(callHealthFields) {
		return
	}
	fast, slow := t.g.countersDue(t.now), t.slow
	asked := func(kind timeline.Kind, held bool) bool {
		if everyTick(kind, held) {
			return fast
		}
		return slow
	}
	for i := range h.sums {
		// A sum not asked keeps its last reading, but a counter's rate
		// takes two in a row: unknown.
		if s := &h.sums[i]; asked(s.kind, s.held) || s.kind == timeline.Counter {
			s.sum, s.read = 0, false
		}
	}
	buf := h.buf[:0]
	for i := range h.list {
		if f := &h.list[i]; asked(f.kind, f.held) {
			buf = append(buf, nvml.FieldValue{FieldId: f.id, ScopeId: f.scope})
		}
	}
	h.buf = buf
	// GetFieldValues is never called with no field (go-nvml indexes the
	// slice's first element).
	if len(buf) == 0 || !t.ok(callHealthFields, t.g.dev.GetFieldValues(buf)) {
		if len(buf) > 0 && slow {
			t.g.healthNow.Store(true) // the counts, again next tick
		}
		t.writeSums()
		t.nvlinkWrite(false)
		return
	}
	dropped := false
	keep := h.list[:0]
	j := 0
	for k := range h.list {
		f := h.list[k]
		if !asked(f.kind, f.held) {
			keep = append(keep, f)
			continue
		}
		fv := buf[j]
		j++
		ret := nvml.Return(fv.NvmlReturn)
		switch t.check(f.metric, ret) {
		case outcomeUnsupported:
			if f.legacy != 0 {
				t.g.n.note("%s: field %d (%s): %s, asking field %d instead", t.g.device, f.id, f.metric, returnText(ret), f.legacy)
				f.id, f.legacy = f.legacy, 0
				break
			}
			t.g.n.note("%s: field %d (%s): %s, no longer asked", t.g.device, f.id, f.metric, returnText(ret))
			h.nvlink.fieldDropped(f)
			dropped = true
			continue
		case outcomeOK:
			if v, ok := decodeValue(nvml.ValueType(fv.ValueType), fv.Value); ok && v >= 0 {
				s := &h.sums[f.sum]
				s.sum += v
				s.read = true
			}
		}
		keep = append(keep, f)
	}
	h.list = keep
	if dropped {
		// A metric all of whose fields were dropped this tick is absent.
		h.dropEmptySums()
	}
	t.writeSums()
	t.nvlinkWrite(slow)
}

// dropEmptySums drops the sums no field feeds any more, keeping this
// tick's values of the others.
func (h *healthState) dropEmptySums() {
	fed := make([]int, len(h.sums))
	for i := range fed {
		fed[i] = -1
	}
	for i := range h.list {
		fed[h.list[i].sum] = 0
	}
	kept := h.sums[:0]
	for i, s := range h.sums {
		if fed[i] < 0 {
			continue
		}
		fed[i] = len(kept)
		kept = append(kept, s)
	}
	h.sums = kept
	for i := range h.list {
		h.list[i].sum = fed[h.list[i].sum]
	}
	h.nvlink.index(h.sums)
}

// writeSums writes each health metric: its sum, or NaN where none of its
// fields answered when last asked (a counting one: this tick).
func (t *tick) writeSums() {
	for _, s := range t.g.health.sums {
		if s.held {
			continue
		}
		v := math.NaN()
		if s.read {
			v = s.sum
			if s.round > 0 {
				v = math.Round(v / s.round)
			}
			if s.per > 0 {
				v /= s.per
			}
		}
		if s.kind == timeline.Counter {
			t.counter(s.metric, v)
		} else {
			t.gauge(s.metric, v)
		}
	}
}
