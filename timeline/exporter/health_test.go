package exporter

import (
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// The health metrics go out under dcgm-exporter's names and units: the last
// Xid as a gauge, ECC and replay counts and the violation times (µs) as
// counters, NVLink as bytes/s.
func TestHealthSeriesCarryDCGMNames(t *testing.T) {
	sample := func(sec int) timeline.Sample {
		s := fixedSample(sec, 1000+float64(sec)*500)
		s.SetMetrics(append(s.Metrics(),
			gauge(timeline.GPUXid, "gpu0", 79),
			gauge(timeline.GPUECCUncorrected, "gpu0", 2),
			gauge(timeline.GPUPCIeReplays, "gpu0", 11),
			gauge(timeline.GPUPCIeWidth, "gpu0", 8),
			counter(timeline.GPUViolPowerSecs, "gpu0", 90+float64(sec)/2),
			counter(timeline.GPUNVLinkTxMiB, "gpu0", float64(sec)*1000),
		))
		return s
	}
	got, _ := gather(t, observed(sample(0), sample(1)))
	for name, want := range map[string]float64{
		"DCGM_FI_DEV_XID_ERRORS{0}":          79,
		"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL{0}":   2,
		"DCGM_FI_DEV_PCIE_REPLAY_COUNTER{0}": 11,
		"gputop_pcie_link_width{0}":          8,
		"DCGM_FI_DEV_POWER_VIOLATION{0}":     90.5e6,     // µs
		"DCGM_FI_PROF_NVLINK_TX_BYTES{0}":    1000 << 20, // from MiB
	} {
		if v, ok := got[name]; !ok || v != want {
			t.Errorf("%s = %v (%v), want %v", name, v, ok, want)
		}
	}
	if _, ok := got["DCGM_FI_DEV_XID_ERRORS{1}"]; ok {
		t.Error("GPU1 has no Xid reading, yet a series")
	}
}

// The faults demo's GPU7 loses NVLink 16 at 1:10 after counting CRC errors
// on it from 0:40: its links and links down are counted, the link down is
// named, and its error counts go out under dcgm-exporter's per-link names;
// a healthy link has no error series (it counted none).
func TestNVLinkSeriesPerLink(t *testing.T) {
	x := New(Options{})
	playDemo(t, x, "faults", 2*time.Minute)
	got, _ := gather(t, x)
	for name, want := range map[string]float64{
		"gputop_nvlink_links{7}":                         18,
		"gputop_nvlink_links_down{7}":                    1,
		"gputop_nvlink_links_down{0}":                    0,
		"gputop_nvlink_link_down{7}/16":                  1,
		"DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L16{7}": 1200,
		"DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L16{7}":   120,
		"DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L16{7}": 1,
	} {
		if v, ok := got[name]; !ok || v != want {
			t.Errorf("%s = %v (%v), want %v", name, v, ok, want)
		}
	}
	for _, name := range []string{"gputop_nvlink_link_down{0}/16", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L0{7}"} {
		if _, ok := got[name]; ok {
			t.Errorf("%s exported", name)
		}
	}
}

// The faults demo's GPU1 falls off the bus at 2:10: from then on
// gputop_gpu_lost names it (its other series end), and no other GPU.
func TestLostGPUIsExported(t *testing.T) {
	x := New(Options{})
	playDemo(t, x, "faults", 2*time.Minute+20*time.Second)
	got, _ := gather(t, x)
	for k, v := range got {
		if strings.HasPrefix(k, "gputop_gpu_lost") && (k != "gputop_gpu_lost{1}" || v != 1) {
			t.Errorf("%s = %v", k, v)
		}
	}
	if got["gputop_gpu_lost{1}"] != 1 {
		t.Errorf("GPU1 fell off the bus at 2:10, yet gputop_gpu_lost{1} is %v", got["gputop_gpu_lost{1}"])
	}
	if _, ok := got["DCGM_FI_DEV_GPU_UTIL{1}"]; ok {
		t.Error("the lost GPU still has a utilisation")
	}
	y := New(Options{})
	playDemo(t, y, "faults", 2*time.Minute)
	if got, _ := gather(t, y); got["gputop_gpu_lost{1}"] != 0 {
		t.Error("GPU1 is lost before it fell off the bus")
	}
}
