package nvidia

import (
	"math"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gputop-dev/gputop/probes/probe"
	"github.com/gputop-dev/gputop/timeline"
)

// Each of the rig's GPUs has four links. GPU0's link 2 is down, its link
// 1 counted CRC errors and its link 0 carried 3 GiB out and 1 GiB in: the
// masks, the erring link's counts and each link's data come from the one
// GetFieldValues the health fields make anyway.
func TestNVLinkPerLinkFromTheOneFieldCall(t *testing.T) {
	r := newRig(t)
	h := r.fakes[0].health
	h.linkDown[2] = true
	h.linkFields[[2]uint32{nvml.FI_DEV_NVLINK_ERROR_DL_CRC, 1}] = 5
	h.linkFields[[2]uint32{nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_TX, 0}] = 3 << 20 // KiB
	h.linkFields[[2]uint32{nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_RX, 0}] = 1 << 20
	n := r.open(t)
	if !hasCheck(n, "NVLink: 4 links, down: 2") || !hasCheck(n, "NVLink: 4 links, all up") {
		t.Errorf("checks: %q", n.Checks())
	}
	calls := len(r.devs[0].GetFieldValuesCalls())
	rd := r.collect(t, n)[0].Reading
	if got := len(r.devs[0].GetFieldValuesCalls()) - calls; got != 1 {
		t.Errorf("GetFieldValues called %d times in a tick, want 1", got)
	}
	wantValue(t, rd, timeline.GPUNVLinkLinks, 0b1111)
	wantValue(t, rd, timeline.GPUNVLinkDown, 0b0100)
	wantValue(t, rd, timeline.GPUNVLinkErrLinks, 0b0010)
	wantValue(t, rd, timeline.NVLinks[1].CRC, 5)
	wantValue(t, rd, timeline.NVLinks[1].Replay, 0)
	wantValue(t, rd, timeline.NVLinks[1].Recovery, 0)
	// A link that counted no error has no counts of its own: the mask says 0.
	wantAbsent(t, rd, timeline.NVLinks[0].CRC)
	wantValue(t, rd, timeline.NVLinks[0].DataGiB, 4)
	wantValue(t, rd, timeline.NVLinks[3].DataGiB, 0)
	if _, kind, _ := metric(rd, timeline.NVLinks[0].DataGiB); kind != timeline.Counter {
		t.Errorf("a link's data is a %v, want a counter", kind)
	}
	// The summed metrics stay as they were.
	wantValue(t, rd, timeline.GPUNVLinkTxMiB, 1024)
	wantValue(t, rd, timeline.GPUNVLinkErrors, 6)
	// Links above the GPU's are never asked for.
	for _, f := range r.devs[0].GetFieldValuesCalls()[calls].FieldValues {
		if f.ScopeId != allLinks && f.ScopeId >= 4 && f.FieldId != nvml.FI_DEV_PCIE_COUNT_TX_BYTES {
			t.Errorf("field %d asked of link %d", f.FieldId, f.ScopeId)
		}
	}
	// Once a link counted an error, its counts are written every tick.
	h.linkFields[[2]uint32{nvml.FI_DEV_NVLINK_ERROR_DL_CRC, 1}] = 0
	rd = r.collect(t, n)[0].Reading
	wantValue(t, rd, timeline.GPUNVLinkErrLinks, 0)
	wantValue(t, rd, timeline.NVLinks[1].CRC, 0)
}

// The failures a real driver gives for the new calls and fields.
func TestNVLinkFailures(t *testing.T) {
	cases := []struct {
		name  string
		setup func(f *fakeGPU)
		ticks int
		check func(t *testing.T, rd probe.Reading, err error)
		noted string
	}{
		{
			name: "PCIe-only GPU: no links, no per-link fields",
			setup: func(f *fakeGPU) {
				f.rets = map[string]nvml.Return{"GetNvLinkState": nvml.ERROR_NOT_SUPPORTED}
			},
			check: func(t *testing.T, rd probe.Reading, err error) {
				wantAbsent(t, rd, timeline.GPUNVLinkLinks)
				wantAbsent(t, rd, timeline.GPUNVLinkDown)
				wantAbsent(t, rd, timeline.NVLinks[0].DataGiB)
				wantValue(t, rd, timeline.GPUECCCorrected, 7)
			},
			noted: "NVLink: none",
		},
		{
			name: "GetNvLinkState missing in the driver: per link off",
			setup: func(f *fakeGPU) {
				f.rets = map[string]nvml.Return{"GetNvLinkState": nvml.ERROR_FUNCTION_NOT_FOUND}
			},
			check: func(t *testing.T, rd probe.Reading, err error) {
				wantAbsent(t, rd, timeline.GPUNVLinkLinks)
				wantValue(t, rd, timeline.GPUNVLinkTxMiB, 1024)
			},
			noted: "NVLink per link: off, GetNvLinkState: Function Not Found",
		},
		{
			name: "one link failing at open is left out",
			setup: func(f *fakeGPU) {
				f.rets = map[string]nvml.Return{"GetNvLinkState/3": nvml.ERROR_UNKNOWN}
			},
			check: func(t *testing.T, rd probe.Reading, err error) {
				wantValue(t, rd, timeline.GPUNVLinkLinks, 0b0111)
				wantAbsent(t, rd, timeline.NVLinks[3].DataGiB)
			},
			noted: "gpu0: NVLink 3: GetNvLinkState: Unknown Error, left out",
		},
		{
			name: "state field not supported: GetNvLinkState every ten ticks",
			setup: func(f *fakeGPU) {
				f.fieldRets = map[uint32]nvml.Return{nvml.FI_DEV_NVLINK_GET_STATE: nvml.ERROR_NOT_SUPPORTED}
			},
			ticks: 12,
			check: func(t *testing.T, rd probe.Reading, err error) {
				// Link 1 went down after open: the tenth tick's poll saw it.
				wantValue(t, rd, timeline.GPUNVLinkDown, 0b0010)
			},
			noted: "field 165 (nvlink_state/0): Not Supported, no longer asked",
		},
		{
			name: "link-scoped error field not supported: the legacy per-link field",
			setup: func(f *fakeGPU) {
				f.fieldRets = map[uint32]nvml.Return{nvml.FI_DEV_NVLINK_ERROR_DL_CRC: nvml.ERROR_NOT_SUPPORTED}
				f.health.linkFields[[2]uint32{nvml.FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L1, 1}] = 9
			},
			check: func(t *testing.T, rd probe.Reading, err error) {
				wantValue(t, rd, timeline.NVLinks[1].CRC, 9)
				wantValue(t, rd, timeline.GPUNVLinkErrLinks, 0b0010)
			},
			noted: "gpu0: field 163 (gpu.nvlink_l1_crc): Not Supported, asking field 33 instead",
		},
		{
			name: "a state field failing this tick: links down unknown",
			setup: func(f *fakeGPU) {
				f.fieldRets = map[uint32]nvml.Return{nvml.FI_DEV_NVLINK_GET_STATE: nvml.ERROR_UNKNOWN}
			},
			check: func(t *testing.T, rd probe.Reading, err error) {
				wantValue(t, rd, timeline.GPUNVLinkDown, math.NaN())
				wantValue(t, rd, timeline.GPUNVLinkLinks, 0b1111)
				if err == nil || !strings.Contains(err.Error(), "nvlink_state/0: Unknown Error") {
					t.Errorf("error %v", err)
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t)
			tc.setup(r.fakes[0])
			n := r.open(t)
			if tc.ticks > 0 {
				r.fakes[0].health.linkDown[1] = true
			}
			var res tickResult
			for range max(tc.ticks, 2) {
				res = r.collect(t, n)[0]
			}
			tc.check(t, res.Reading, res.err)
			if tc.noted != "" && !hasCheck(n, tc.noted) {
				t.Errorf("checks lack %q: %q", tc.noted, n.Checks())
			}
		})
	}
}

// A GPU lost at open (its links asked) or in a tick's poll of a link's
// state is lost, as in every other call.
func TestNVLinkGPULost(t *testing.T) {
	r := newRig(t)
	r.fakes[2].rets = map[string]nvml.Return{"GetNvLinkState": nvml.ERROR_GPU_IS_LOST}
	n := r.open(t)
	if !hasCheck(n, "gpu2: not monitored") {
		t.Errorf("checks: %q", n.Checks())
	}

	r = newRig(t)
	r.fakes[0].fieldRets = map[uint32]nvml.Return{nvml.FI_DEV_NVLINK_GET_STATE: nvml.ERROR_NOT_SUPPORTED}
	n = r.open(t)
	r.fakes[0].rets = map[string]nvml.Return{"GetNvLinkState": nvml.ERROR_GPU_IS_LOST}
	var res tickResult
	for range 2 {
		res = r.collect(t, n)[0]
	}
	if !res.Lost || res.err != ErrGPULost {
		t.Errorf("reading lost %v, %v: want lost", res.Lost, res.err)
	}
	if !hasCheck(n, "gpu0: GPU is lost (in NVLink state)") {
		t.Errorf("checks: %q", n.Checks())
	}
}

func TestLegacyLinkFields(t *testing.T) {
	for _, tc := range []struct {
		id   uint32
		link int
		want uint32
	}{
		{nvml.FI_DEV_NVLINK_ERROR_DL_CRC, 0, nvml.FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L0},
		{nvml.FI_DEV_NVLINK_ERROR_DL_CRC, 5, nvml.FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L5},
		{nvml.FI_DEV_NVLINK_ERROR_DL_CRC, 6, nvml.FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L6},
		{nvml.FI_DEV_NVLINK_ERROR_DL_CRC, 11, nvml.FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L11},
		{nvml.FI_DEV_NVLINK_ERROR_DL_CRC, 12, 0},
		{nvml.FI_DEV_NVLINK_ERROR_DL_REPLAY, 7, nvml.FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L7},
		{nvml.FI_DEV_NVLINK_ERROR_DL_RECOVERY, 3, nvml.FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L3},
		{nvml.FI_DEV_NVLINK_ERROR_DL_RECOVERY, 10, nvml.FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L10},
		{nvml.FI_DEV_NVLINK_GET_STATE, 1, 0},
	} {
		if got := legacyLinkField(tc.id, tc.link); got != tc.want {
			t.Errorf("legacyLinkField(%d, %d) = %d, want %d", tc.id, tc.link, got, tc.want)
		}
	}
}
