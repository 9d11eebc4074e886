package demo

import (
	"math"
	"sync"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gputop-dev/gputop/probes"
)

// The H100's links and health as the demo answers for them: PCIe Gen5 x16
// (the generation drops to Gen1 while the GPU idles, as a real one saves
// power), NVLink traffic while the tensor pipes work, ECC counters, the
// violation counters, and the scenario's Xid errors through an event set.

const (
	h100PCIeGen   = 5
	h100PCIeLanes = 16
	// nvlinkBusy is the NVLink data rate, each way, of a GPU whose tensor
	// pipes are all busy: collectives of a DDP step, a fraction of NVLink
	// 4's 450 GB/s.
	nvlinkBusy = 120e9
)

// scriptedXid is an Xid error the script raises on a GPU, At seconds into
// the demo. Lost takes the GPU off the bus then: from that instant every
// call on it answers ERROR_GPU_IS_LOST, as a real driver's do.
type scriptedXid struct {
	GPU  int
	At   float64
	Code int
	Lost bool
	// DBE is how many double-bit ECC errors it comes with.
	DBE int
}

// gone says whether the GPU has fallen off the bus by now.
func (d *demoDevice) gone() bool {
	us := d.time.now()
	for _, x := range d.gpu.sc.xids {
		if x.Lost && x.GPU == d.gpu.index && float64(us) >= x.At*1e6 {
			return true
		}
	}
	return false
}

// dbe is the count of double-bit errors the script's Xids brought by now.
func (d *demoDevice) dbe() float64 {
	us := d.time.now()
	n := 0
	for _, x := range d.gpu.sc.xids {
		if x.GPU == d.gpu.index && float64(us) >= x.At*1e6 {
			n += x.DBE
		}
	}
	return float64(n)
}

// healthField answers one health field (see probes/nvidia/nvml_health.go) from the
// ledger's totals t.
func (d *demoDevice) healthField(v *nvml.FieldValue, t gpuTotals) (float64, nvml.Return) {
	if x, ret, ok := d.nvlinkField(v, t); ok {
		return x, ret
	}
	switch v.FieldId {
	case nvml.FI_DEV_PCIE_REPLAY_COUNTER, nvml.FI_DEV_ECC_SBE_VOL_TOTAL, nvml.FI_DEV_RETIRED_SBE,
		nvml.FI_DEV_RETIRED_DBE, nvml.FI_DEV_REMAPPED_COR, nvml.FI_DEV_PERF_POLICY_SYNC_BOOST, nvml.FI_DEV_PERF_POLICY_BOARD_LIMIT,
		nvml.FI_DEV_PERF_POLICY_LOW_UTILIZATION, nvml.FI_DEV_PERF_POLICY_RELIABILITY:
		return 0, nvml.SUCCESS
	case nvml.FI_DEV_ECC_SBE_AGG_TOTAL:
		// A few corrected errors over the GPU's life, none since the driver loaded.
		return float64(d.gpu.index % 3), nvml.SUCCESS
	case nvml.FI_DEV_ECC_DBE_VOL_TOTAL, nvml.FI_DEV_ECC_DBE_AGG_TOTAL:
		return d.dbe(), nvml.SUCCESS
	case nvml.FI_DEV_REMAPPED_UNC:
		return d.dbe(), nvml.SUCCESS
	case nvml.FI_DEV_PERF_POLICY_POWER:
		return math.Floor(t.ViolPower * 1e9), nvml.SUCCESS // ns
	case nvml.FI_DEV_PERF_POLICY_THERMAL:
		return math.Floor(t.ViolThermal * 1e9), nvml.SUCCESS
	}
	return 0, nvml.ERROR_NOT_SUPPORTED
}

// GetMaxPcieLinkGeneration is Gen5.
func (d *demoDevice) GetMaxPcieLinkGeneration() (int, nvml.Return) {
	if d.gone() {
		return 0, nvml.ERROR_GPU_IS_LOST
	}
	return h100PCIeGen, nvml.SUCCESS
}

// GetMaxPcieLinkWidth is x16.
func (d *demoDevice) GetMaxPcieLinkWidth() (int, nvml.Return) {
	if d.gone() {
		return 0, nvml.ERROR_GPU_IS_LOST
	}
	return h100PCIeLanes, nvml.SUCCESS
}

// GetCurrPcieLinkGeneration is Gen5 at work and Gen1 while parked.
func (d *demoDevice) GetCurrPcieLinkGeneration() (int, nvml.Return) {
	if d.gone() {
		return 0, nvml.ERROR_GPU_IS_LOST
	}
	if s, _ := d.gpu.now(d.time.now()); s.Parked {
		return 1, nvml.SUCCESS
	}
	return h100PCIeGen, nvml.SUCCESS
}

// GetCurrPcieLinkWidth is the lanes the link trained at.
func (d *demoDevice) GetCurrPcieLinkWidth() (int, nvml.Return) {
	if d.gone() {
		return 0, nvml.ERROR_GPU_IS_LOST
	}
	if l := d.gpu.sc.lanes[d.gpu.index]; l > 0 {
		return l, nvml.SUCCESS
	}
	return h100PCIeLanes, nvml.SUCCESS
}

// GetSupportedEventTypes includes Xid errors.
func (d *demoDevice) GetSupportedEventTypes() (uint64, nvml.Return) {
	if d.gone() {
		return 0, nvml.ERROR_GPU_IS_LOST
	}
	return nvml.EventTypeXidCriticalError | nvml.EventTypeSingleBitEccError | nvml.EventTypeDoubleBitEccError, nvml.SUCCESS
}

// RegisterEvents adds the device's Xids to a demo event set.
func (d *demoDevice) RegisterEvents(types uint64, set nvml.EventSet) nvml.Return {
	if d.gone() {
		return nvml.ERROR_GPU_IS_LOST
	}
	es, ok := set.(*demoEventSet)
	if !ok {
		return nvml.ERROR_INVALID_ARGUMENT
	}
	if types&nvml.EventTypeXidCriticalError != 0 {
		es.register(d)
	}
	return nvml.SUCCESS
}

// demoEventSet is NVML's event set over the scenario's Xids. It embeds the
// interface only to satisfy it: the probe calls Wait and Free, nothing else.
type demoEventSet struct {
	nvml.EventSet
	time demoTime
	sc   *scenario

	mu        sync.Mutex
	devices   map[int]*demoDevice
	delivered int // scripted xids handed out, in order
	lastAt    time.Time
}

func (d *Node) eventSetCreate() (nvml.EventSet, nvml.Return) {
	// Xids due before the set was opened are not news to it.
	past, now := 0, d.time.now()
	for past < len(d.sc.xids) && int64(d.sc.xids[past].At*1e6) < now {
		past++
	}
	return &demoEventSet{time: d.time, sc: d.sc, devices: map[int]*demoDevice{}, delivered: past}, nvml.SUCCESS
}

func (s *demoEventSet) register(d *demoDevice) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.devices[d.gpu.index] = d
}

// next hands out the next scripted Xid that is due, of a registered GPU;
// it also says when the next one is due (µs since the demo began), -1 for
// none.
func (s *demoEventSet) next() (nvml.EventData, bool, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.time.now()
	for s.delivered < len(s.sc.xids) {
		x := s.sc.xids[s.delivered]
		due := int64(x.At * 1e6)
		if due > now {
			return nvml.EventData{}, false, due
		}
		s.delivered++
		if d, ok := s.devices[x.GPU]; ok {
			s.lastAt = s.time.start.Add(time.Duration(due) * time.Microsecond)
			return nvml.EventData{Device: d, EventType: nvml.EventTypeXidCriticalError, EventData: uint64(x.Code)}, true, 0
		}
	}
	return nvml.EventData{}, false, -1
}

// Wait blocks as the driver's does, in real time, for at most timeoutms: it
// sleeps until the next scripted Xid is due or the timeout passes. On a
// simulated clock that jumps (--fast), it looks again every few
// milliseconds while an Xid is pending, since simulated time runs ahead.
func (s *demoEventSet) Wait(timeoutms uint32) (nvml.EventData, nvml.Return) {
	deadline := time.Now().Add(time.Duration(timeoutms) * time.Millisecond)
	_, fast := s.time.clock.(*probes.FastClock)
	for {
		ev, ok, due := s.next()
		if ok {
			return ev, nvml.SUCCESS
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nvml.EventData{}, nvml.ERROR_TIMEOUT
		}
		if due >= 0 {
			until := time.Duration(due-s.time.now()) * time.Microsecond
			if fast {
				until = 2 * time.Millisecond
			}
			left = min(left, max(until, time.Millisecond))
		}
		time.Sleep(left)
	}
}

// LastEventTime is when the Xid last handed out happened, on the demo's
// clock (see probes' eventTimer).
func (s *demoEventSet) LastEventTime() (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastAt, !s.lastAt.IsZero()
}

// Free frees the set.
func (s *demoEventSet) Free() nvml.Return { return nvml.SUCCESS }
