package probes

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
	// recording dearly); NVLink's KiB become MiB.
	round float64
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
	fields []int // indexes into healthFields still asked for
	buf    []nvml.FieldValue
	sums   []healthSum
	// link says the PCIe link can be read; genMax and widthMax are its
	// maximum, read at open.
	link             bool
	genMax, widthMax float64
}

type healthSum struct {
	metric string
	kind   timeline.Kind
	sum    float64
	read   bool // a field of it answered this tick
}

// openHealth reads the PCIe link's maximum and sets up the health fields;
// it returns the line for Checks. ErrGPULost if the GPU is gone.
func (g *gpuProbe) openHealth() (string, error) {
	h := &g.health
	h.fields = make([]int, len(healthFields))
	for i := range healthFields {
		h.fields[i] = i
	}
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

// healthFields reads every health field in one GetFieldValues and writes
// the metrics they feed, and the last Xid where the event watcher listens.
// A field the device does not support is dropped for good; one that failed
// this tick leaves its metric NaN.
func (t *tick) healthFields() {
	h := &t.g.health
	if t.g.xidWatched.Load() {
		t.gauge(timeline.GPUXid, float64(t.g.xid.Load()))
	}
	if len(h.fields) == 0 || !t.ask(callHealthFields) {
		return
	}
	h.sums = h.sums[:0]
	sumOf := func(f *healthField) *healthSum {
		for i := range h.sums {
			if h.sums[i].metric == f.metric {
				return &h.sums[i]
			}
		}
		h.sums = append(h.sums, healthSum{metric: f.metric, kind: f.kind})
		return &h.sums[len(h.sums)-1]
	}
	buf := h.buf[:0]
	for _, i := range h.fields {
		buf = append(buf, nvml.FieldValue{FieldId: healthFields[i].id, ScopeId: healthFields[i].scope})
		sumOf(&healthFields[i])
	}
	h.buf = buf
	// GetFieldValues is never called with no field (go-nvml indexes the
	// slice's first element): h.fields is not empty here.
	if !t.ok(callHealthFields, t.g.dev.GetFieldValues(buf)) {
		t.writeSums(false)
		return
	}
	keep := h.fields[:0]
	for k, i := range h.fields {
		f := &healthFields[i]
		fv := buf[k]
		ret := nvml.Return(fv.NvmlReturn)
		switch t.check(f.metric, ret) {
		case outcomeUnsupported:
			t.g.n.note("%s: field %d (%s): %s, no longer asked", t.g.device, f.id, f.metric, returnText(ret))
			continue
		case outcomeOK:
			if v, ok := decodeValue(nvml.ValueType(fv.ValueType), fv.Value); ok && v >= 0 {
				if f.round > 0 {
					v = math.Round(v / f.round)
				}
				if f.per > 0 {
					v /= f.per
				}
				s := sumOf(f)
				s.sum += v
				s.read = true
			}
		}
		keep = append(keep, i)
	}
	h.fields = keep
	// A metric all of whose fields were dropped this tick is absent.
	kept := h.sums[:0]
	for _, s := range h.sums {
		for _, i := range h.fields {
			if healthFields[i].metric == s.metric {
				kept = append(kept, s)
				break
			}
		}
	}
	h.sums = kept
	t.writeSums(true)
}

// writeSums writes each health metric: its sum, or NaN where none of its
// fields answered (or, with answered false, the call itself failed).
func (t *tick) writeSums(answered bool) {
	for _, s := range t.g.health.sums {
		v := math.NaN()
		if answered && s.read {
			v = s.sum
		}
		if s.kind == timeline.Counter {
			t.counter(s.metric, v)
		} else {
			t.gauge(s.metric, v)
		}
	}
}
