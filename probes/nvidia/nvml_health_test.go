package nvidia

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"

	"github.com/gputop-dev/gputop/probes/probe"
	"github.com/gputop-dev/gputop/timeline"
)

// fakeHealth is what one mock GPU answers for its links, health fields and
// events.
type fakeHealth struct {
	genMax, widthMax, gen, width int
	fields                       map[uint32]uint64
	eventTypes                   uint64
	// links are the GPU's NVLink links (GetNvLinkState answers for ids
	// below it), linkDown the ones down; linkFields answers a field
	// scoped to a link, by field and link.
	links      int
	linkDown   map[int]bool
	linkFields map[[2]uint32]uint64
}

// wireHealth wires the PCIe link, event and (through fakeGPU.health's
// fields) health-field functions of a rig's device.
func (r *rig) wireHealth(d *server.Device, f *fakeGPU) {
	f.health = &fakeHealth{
		genMax: 5, widthMax: 16, gen: 5, width: 16,
		eventTypes: nvml.EventTypeXidCriticalError,
		links:      4,
		linkDown:   map[int]bool{},
		linkFields: map[[2]uint32]uint64{},
		fields: map[uint32]uint64{
			nvml.FI_DEV_PCIE_REPLAY_COUNTER:               3,
			nvml.FI_DEV_ECC_SBE_VOL_TOTAL:                 7,
			nvml.FI_DEV_ECC_DBE_VOL_TOTAL:                 1,
			nvml.FI_DEV_ECC_SBE_AGG_TOTAL:                 70,
			nvml.FI_DEV_ECC_DBE_AGG_TOTAL:                 2,
			nvml.FI_DEV_RETIRED_SBE:                       0,
			nvml.FI_DEV_RETIRED_DBE:                       0,
			nvml.FI_DEV_REMAPPED_COR:                      4,
			nvml.FI_DEV_REMAPPED_UNC:                      1,
			nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_TX:         1 << 20, // KiB
			nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_RX:         2 << 20,
			nvml.FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL: 5,
			nvml.FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL:   1,
			nvml.FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL: 0,
			nvml.FI_DEV_PERF_POLICY_POWER:                 90e9,         // ns
			nvml.FI_DEV_PERF_POLICY_THERMAL:               3e9 + 123456, // kept to the ms
			nvml.FI_DEV_PERF_POLICY_SYNC_BOOST:            0,
			nvml.FI_DEV_PERF_POLICY_BOARD_LIMIT:           0,
			nvml.FI_DEV_PERF_POLICY_LOW_UTILIZATION:       0,
			nvml.FI_DEV_PERF_POLICY_RELIABILITY:           0,
		},
	}
	h := f.health
	d.GetMaxPcieLinkGenerationFunc = func() (int, nvml.Return) { return h.genMax, f.ret("GetMaxPcieLinkGeneration") }
	d.GetMaxPcieLinkWidthFunc = func() (int, nvml.Return) { return h.widthMax, f.ret("GetMaxPcieLinkWidth") }
	d.GetCurrPcieLinkGenerationFunc = func() (int, nvml.Return) { return h.gen, f.ret("GetCurrPcieLinkGeneration") }
	d.GetCurrPcieLinkWidthFunc = func() (int, nvml.Return) { return h.width, f.ret("GetCurrPcieLinkWidth") }
	d.GetNvLinkStateFunc = func(link int) (nvml.EnableState, nvml.Return) {
		if ret := f.ret("GetNvLinkState"); ret != nvml.SUCCESS {
			return 0, ret
		}
		if ret, ok := f.rets["GetNvLinkState/"+strconv.Itoa(link)]; ok {
			return 0, ret
		}
		if link >= h.links {
			return 0, nvml.ERROR_INVALID_ARGUMENT
		}
		if h.linkDown[link] {
			return nvml.FEATURE_DISABLED, nvml.SUCCESS
		}
		return nvml.FEATURE_ENABLED, nvml.SUCCESS
	}
	d.GetSupportedEventTypesFunc = func() (uint64, nvml.Return) { return h.eventTypes, f.ret("GetSupportedEventTypes") }
	d.RegisterEventsFunc = func(uint64, nvml.EventSet) nvml.Return { return f.ret("RegisterEvents") }
	if r.xids == nil {
		r.xids = make(chan nvml.EventData, 8)
		r.srv.EventSetCreateFunc = func() (nvml.EventSet, nvml.Return) {
			return &mock.EventSet{
				WaitFunc: func(ms uint32) (nvml.EventData, nvml.Return) {
					select {
					case e := <-r.xids:
						return e, nvml.SUCCESS
					case <-time.After(time.Duration(ms) * time.Millisecond):
						return nvml.EventData{}, nvml.ERROR_TIMEOUT
					}
				},
				FreeFunc: func() nvml.Return { return nvml.SUCCESS },
			}, nvml.SUCCESS
		}
	}
}

// pcieFieldCalls are a device's GetFieldValues calls for the PCIe byte
// counters, leaving out the health fields' own call.
func pcieFieldCalls(d *server.Device) []struct{ FieldValues []nvml.FieldValue } {
	var out []struct{ FieldValues []nvml.FieldValue }
	for _, c := range d.GetFieldValuesCalls() {
		if len(c.FieldValues) > 0 && (c.FieldValues[0].FieldId == nvml.FI_DEV_PCIE_COUNT_TX_BYTES ||
			c.FieldValues[0].FieldId == nvml.FI_DEV_PCIE_COUNT_RX_BYTES) {
			out = append(out, c)
		}
	}
	return out
}

func TestHealthMetricsFromOneFieldCall(t *testing.T) {
	r := newRig(t)
	n := r.open(t)
	res := r.collect(t, n)
	rd := res[0].Reading
	if res[0].err != nil {
		t.Fatal(res[0].err)
	}
	for name, want := range map[string]float64{
		timeline.GPUPCIeGen: 5, timeline.GPUPCIeGenMax: 5, timeline.GPUPCIeWidth: 16, timeline.GPUPCIeWidthMax: 16,
		timeline.GPUPCIeReplays:  3,
		timeline.GPUECCCorrected: 7, timeline.GPUECCUncorrected: 1, timeline.GPUECCCorrectedAgg: 70, timeline.GPUECCUncorrectedAgg: 2,
		timeline.GPURetiredPages: 0, timeline.GPURemappedRows: 5,
		timeline.GPUNVLinkTxMiB: 1024, timeline.GPUNVLinkRxMiB: 2048, timeline.GPUNVLinkErrors: 6,
		timeline.GPUViolPowerSecs: 90, timeline.GPUViolThermalSecs: 3,
	} {
		wantValue(t, rd, name, want)
	}
	if _, kind, _ := metric(rd, timeline.GPUViolPowerSecs); kind != timeline.Counter {
		t.Errorf("violation time is a %v, want a counter", kind)
	}
	// Without the event watcher, the last Xid is not known: absent.
	wantAbsent(t, rd, timeline.GPUXid)
	// PCIe bytes come from GPM here: the one call is the health fields'.
	if got := len(r.devs[0].GetFieldValuesCalls()); got != 1 {
		t.Errorf("GetFieldValues called %d times in a tick, want 1", got)
	}
}

// A PCIe-only GPU answers NOT_SUPPORTED for every NVLink field: its NVLink
// metrics are absent and the fields are not asked again; the rest go on.
func TestNVLinkAbsentWhereNotSupported(t *testing.T) {
	r := newRig(t)
	r.fakes[1].fieldRets = map[uint32]nvml.Return{
		nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_TX:         nvml.ERROR_NOT_SUPPORTED,
		nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_RX:         nvml.ERROR_NOT_SUPPORTED,
		nvml.FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL: nvml.ERROR_NOT_SUPPORTED,
		nvml.FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL:   nvml.ERROR_NOT_SUPPORTED,
		nvml.FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL: nvml.ERROR_NOT_SUPPORTED,
	}
	n := r.open(t)
	r.collect(t, n)
	rd := r.collect(t, n)[1].Reading
	wantAbsent(t, rd, timeline.GPUNVLinkTxMiB)
	wantAbsent(t, rd, timeline.GPUNVLinkErrors)
	wantValue(t, rd, timeline.GPUECCCorrected, 7)
	calls := r.devs[1].GetFieldValuesCalls()
	last := calls[len(calls)-1].FieldValues
	for _, f := range last {
		if f.FieldId == nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_TX {
			t.Error("an NVLink field the GPU does not support was asked again")
		}
	}
	if !hasCheck(n, "gpu1: field 138 (gpu.nvlink_tx_mib): Not Supported, no longer asked") {
		t.Errorf("checks do not say NVLink was given up: %q", n.Checks())
	}
}

// The failures a real driver gives, for each new call.
func TestLinkAndHealthFailures(t *testing.T) {
	cases := []struct {
		name   string
		fn     string
		ret    nvml.Return
		check  func(t *testing.T, rd probe.Reading, err error)
		noted  string
		asked  func(r *rig) int
		wantAs int
	}{
		{
			name: "link max not supported: no link metrics", fn: "GetMaxPcieLinkGeneration", ret: nvml.ERROR_NOT_SUPPORTED,
			check: func(t *testing.T, rd probe.Reading, err error) {
				wantAbsent(t, rd, timeline.GPUPCIeGen)
				wantAbsent(t, rd, timeline.GPUPCIeWidthMax)
			},
			noted: "PCIe link: Not Supported",
			asked: func(r *rig) int { return len(r.devs[0].GetCurrPcieLinkGenerationCalls()) }, wantAs: 0,
		},
		{
			name: "current gen missing in an old driver: given up", fn: "GetCurrPcieLinkGeneration", ret: nvml.ERROR_FUNCTION_NOT_FOUND,
			check: func(t *testing.T, rd probe.Reading, err error) {
				wantAbsent(t, rd, timeline.GPUPCIeGen)
				wantValue(t, rd, timeline.GPUECCCorrected, 7)
			},
			noted: "gpu0: PCIe link: Function Not Found, no longer asked",
			asked: func(r *rig) int { return len(r.devs[0].GetCurrPcieLinkGenerationCalls()) }, wantAs: 1,
		},
		{
			name: "lost in the link call", fn: "GetCurrPcieLinkWidth", ret: nvml.ERROR_GPU_IS_LOST,
			check: func(t *testing.T, rd probe.Reading, err error) {
				if !rd.Lost || err != ErrGPULost {
					t.Errorf("reading %+v, %v: want lost", rd.Lost, err)
				}
			},
			noted: "gpu0: GPU is lost (in PCIe link)",
			asked: func(r *rig) int { return len(r.devs[0].GetCurrPcieLinkWidthCalls()) }, wantAs: 1,
		},
		{
			name: "health call not supported: given up", fn: "GetFieldValues", ret: nvml.ERROR_NOT_SUPPORTED,
			check: func(t *testing.T, rd probe.Reading, err error) {
				wantAbsent(t, rd, timeline.GPUECCCorrected)
				wantValue(t, rd, timeline.GPUPCIeGen, 5)
			},
			noted: "gpu0: health counters: Not Supported, no longer asked",
		},
		{
			name: "health call lost", fn: "GetFieldValues", ret: nvml.ERROR_GPU_IS_LOST,
			check: func(t *testing.T, rd probe.Reading, err error) {
				if !rd.Lost {
					t.Error("not lost")
				}
			},
			noted: "gpu0: GPU is lost",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t)
			r.fakes[0].rets = map[string]nvml.Return{tc.fn: tc.ret}
			n := r.open(t)
			r.collect(t, n)
			res := r.collect(t, n)[0]
			tc.check(t, res.Reading, res.err)
			if !hasCheck(n, tc.noted) {
				t.Errorf("checks lack %q: %q", tc.noted, n.Checks())
			}
			if tc.asked != nil {
				if got := tc.asked(r); got != tc.wantAs {
					t.Errorf("asked %d times, want %d", got, tc.wantAs)
				}
			}
		})
	}
}

// The watcher waits in EventSetWait; an Xid becomes a marker with the
// catalogue's meaning and the GPU's gpu.xid, and Close stops it.
func TestXidEventBecomesMarker(t *testing.T) {
	r := newRig(t)
	r.fakes[5].health.eventTypes = 0 // a GPU without Xid events
	n := r.open(t)
	var mu sync.Mutex
	var marks []string
	got := make(chan struct{}, 4)
	n.WatchXid(func(m timeline.Marker) {
		mu.Lock()
		marks = append(marks, m.Origin+": "+m.Text)
		mu.Unlock()
		got <- struct{}{}
	})
	if !hasCheck(n, "Xid events: watched on 7 of 8 GPUs") || !hasCheck(n, "gpu5: Xid events: not supported") {
		t.Errorf("checks: %q", n.Checks())
	}
	r.xids <- nvml.EventData{Device: r.devs[3], EventType: nvml.EventTypeXidCriticalError, EventData: 79}
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("no marker for the Xid")
	}
	mu.Lock()
	if len(marks) != 1 || marks[0] != "xid: GPU3 Xid 79: GPU has fallen off the bus" {
		t.Errorf("markers %q", marks)
	}
	mu.Unlock()
	res := r.collect(t, n)
	wantValue(t, res[3].Reading, timeline.GPUXid, 79)
	wantValue(t, res[2].Reading, timeline.GPUXid, 0)
	wantAbsent(t, res[5].Reading, timeline.GPUXid)
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Probes()[0].Collect(context.Background()); err == nil {
		t.Error("collect after Close")
	}
}

// Polled (a simulated machine on a clock that jumps), Xids wait in the set
// until DrainXid hands out all it holds without waiting; after Close it
// hands out nothing.
func TestPolledXidsWaitForDrain(t *testing.T) {
	r := newRig(t)
	n := r.open(t)
	queued := []nvml.EventData{
		{Device: r.devs[3], EventType: nvml.EventTypeXidCriticalError, EventData: 48},
		{Device: r.devs[3], EventType: nvml.EventTypeXidCriticalError, EventData: 79},
	}
	r.srv.EventSetCreateFunc = func() (nvml.EventSet, nvml.Return) {
		return &mock.EventSet{
			WaitFunc: func(ms uint32) (nvml.EventData, nvml.Return) {
				if ms != 0 {
					t.Errorf("a wait of %d ms", ms)
				}
				if len(queued) == 0 {
					return nvml.EventData{}, nvml.ERROR_TIMEOUT
				}
				e := queued[0]
				queued = queued[1:]
				return e, nvml.SUCCESS
			},
			FreeFunc: func() nvml.Return { return nvml.SUCCESS },
		}, nvml.SUCCESS
	}
	var marks []string
	n.PollXid(func(m timeline.Marker) { marks = append(marks, m.Text) })
	if len(marks) != 0 || len(queued) != 2 {
		t.Fatalf("before the drain: markers %q, %d events left in the set", marks, len(queued))
	}
	n.DrainXid()
	if want := []string{"GPU3 Xid 48: Double Bit ECC Error", "GPU3 Xid 79: GPU has fallen off the bus"}; !slices.Equal(marks, want) {
		t.Errorf("markers %q, want %q", marks, want)
	}
	wantValue(t, r.collect(t, n)[3].Reading, timeline.GPUXid, 79)
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	queued = append(queued, nvml.EventData{Device: r.devs[0], EventType: nvml.EventTypeXidCriticalError, EventData: 48})
	n.DrainXid()
	if len(marks) != 2 {
		t.Errorf("a marker after Close: %q", marks)
	}
}

// An old driver without the event functions: no watcher, no call.
func TestXidWatcherOffWithoutSymbols(t *testing.T) {
	r := newRig(t)
	r.symbols["nvmlEventSetWait_v2"] = true
	n := r.open(t)
	n.WatchXid(func(timeline.Marker) { t.Error("marker without a watcher") })
	if len(r.srv.EventSetCreateCalls()) != 0 {
		t.Error("EventSetCreate called without the event symbols")
	}
	if !hasCheck(n, "Xid events: off, the driver lacks nvmlEventSetWait_v2") {
		t.Errorf("checks: %q", n.Checks())
	}
	for _, c := range n.Checks() {
		if strings.Contains(c, "watched") {
			t.Errorf("check %q", c)
		}
	}
	if v, _, ok := metric(r.collect(t, n)[0].Reading, timeline.GPUXid); ok && !math.IsNaN(v) {
		t.Errorf("gpu.xid = %v without a watcher", v)
	}
}

// The event functions fail as a real driver's do: each case leaves the
// watcher off for the GPU (or all), says why in Checks, and a GPU found
// lost while registering is lost for the probe too.
func TestXidRegistrationFailures(t *testing.T) {
	cases := []struct {
		name    string
		fn      string
		ret     nvml.Return
		noted   string
		lost    bool
		watched string
	}{
		{"types not supported", "GetSupportedEventTypes", nvml.ERROR_NOT_SUPPORTED,
			"gpu2: Xid events: Not Supported", false, "watched on 7 of 8 GPUs"},
		{"lost while asking the types", "GetSupportedEventTypes", nvml.ERROR_GPU_IS_LOST,
			"gpu2: GPU is lost (in GetSupportedEventTypes)", true, "watched on 7 of 8 GPUs"},
		{"register missing in an old driver", "RegisterEvents", nvml.ERROR_FUNCTION_NOT_FOUND,
			"gpu2: Xid events: RegisterEvents: Function Not Found", false, "watched on 7 of 8 GPUs"},
		{"lost while registering", "RegisterEvents", nvml.ERROR_GPU_IS_LOST,
			"gpu2: GPU is lost (in RegisterEvents)", true, "watched on 7 of 8 GPUs"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t)
			n := r.open(t)
			r.fakes[2].rets = map[string]nvml.Return{tc.fn: tc.ret}
			n.WatchXid(func(timeline.Marker) {})
			if !hasCheck(n, tc.noted) || !hasCheck(n, tc.watched) {
				t.Errorf("checks: %q", n.Checks())
			}
			res := r.collect(t, n)[2]
			if res.Lost != tc.lost {
				t.Errorf("lost %v, want %v", res.Lost, tc.lost)
			}
			if !tc.lost {
				wantAbsent(t, res.Reading, timeline.GPUXid)
			}
		})
	}
}

func TestXidEventSetCreateFails(t *testing.T) {
	r := newRig(t)
	r.srv.EventSetCreateFunc = func() (nvml.EventSet, nvml.Return) { return nil, nvml.ERROR_NOT_SUPPORTED }
	n := r.open(t)
	n.WatchXid(func(timeline.Marker) {})
	if !hasCheck(n, "Xid events: off, nvmlEventSetCreate: Not Supported") {
		t.Errorf("checks: %q", n.Checks())
	}
	wantAbsent(t, r.collect(t, n)[0].Reading, timeline.GPUXid)
}

// A wait that keeps failing at once never spins: the watcher pauses
// between tries and gives up after ten, and Close still returns at once.
func TestXidWaitErrorsStopTheWatcher(t *testing.T) {
	r := newRig(t)
	var waits sync.WaitGroup
	calls := 0
	var mu sync.Mutex
	waits.Add(1)
	r.srv.EventSetCreateFunc = func() (nvml.EventSet, nvml.Return) {
		return &mock.EventSet{
			WaitFunc: func(uint32) (nvml.EventData, nvml.Return) {
				mu.Lock()
				defer mu.Unlock()
				calls++
				if calls == 10 {
					waits.Done()
				}
				return nvml.EventData{}, nvml.ERROR_UNKNOWN
			},
			FreeFunc: func() nvml.Return { return nvml.SUCCESS },
		}, nvml.SUCCESS
	}
	n := r.open(t)
	start := time.Now()
	n.WatchXid(func(timeline.Marker) {})
	waits.Wait()
	if took := time.Since(start); took < 9*xidRetryPause {
		t.Errorf("ten failed waits in %v: no pause between them", took)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !hasCheck(n, "Xid events: stopped, nvmlEventSetWait: Unknown Error") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !hasCheck(n, "Xid events: stopped") {
		t.Errorf("checks: %q", n.Checks())
	}
}

// linkField answers a field asked of one link: its state from linkDown,
// the rest from linkFields (0 where not set). ok is false for a field not
// scoped to a link.
func (h *fakeHealth) linkField(v *nvml.FieldValue) (uint64, bool) {
	if v.ScopeId == allLinks || int(v.ScopeId) >= h.links {
		return 0, false
	}
	switch v.FieldId {
	case nvml.FI_DEV_NVLINK_GET_STATE:
		if h.linkDown[int(v.ScopeId)] {
			return nvml.NVLINK_STATE_INACTIVE, true
		}
		return nvml.NVLINK_STATE_ACTIVE, true
	case nvml.FI_DEV_NVLINK_ERROR_DL_CRC, nvml.FI_DEV_NVLINK_ERROR_DL_REPLAY, nvml.FI_DEV_NVLINK_ERROR_DL_RECOVERY,
		nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_TX, nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_RX:
		return h.linkFields[[2]uint32{v.FieldId, v.ScopeId}], true
	}
	// The legacy per-link error fields carry the link in their id.
	for _, id := range []uint32{nvml.FI_DEV_NVLINK_ERROR_DL_CRC, nvml.FI_DEV_NVLINK_ERROR_DL_REPLAY, nvml.FI_DEV_NVLINK_ERROR_DL_RECOVERY} {
		if legacyLinkField(id, int(v.ScopeId)) == v.FieldId && v.FieldId != 0 {
			return h.linkFields[[2]uint32{v.FieldId, v.ScopeId}], true
		}
	}
	return 0, false
}
