package demo

import (
	"math"
	"sync"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// The H100's eighteen NVLink links as the demo answers for them: the GPU's
// NVLink traffic (health.go's nvlinkBusy) spread evenly over its links that
// are up, and a scenario's link faults: CRC errors counting on one link,
// and the link going down, after which its peers carry its share.

// h100Links is the H100 SXM's NVLink 4 link count.
const h100Links = 18

// scriptedLinkFault is a failing NVLink link: from CRCAt seconds into the
// demo it counts CRC errors (CRCPerSec, with a replay for every tenth), and
// at DownAt it goes down (with one recovery error: the link tried to
// retrain and failed). DownAt 0 leaves it up.
type scriptedLinkFault struct {
	GPU, Link        int
	CRCAt, CRCPerSec float64
	DownAt           float64
	once             sync.Once
	downTx, downRx   float64 // the GPU's NVLink totals when the link went down
}

// linkFault is the scenario's fault on this GPU, nil for none.
func (d *demoDevice) linkFault() *scriptedLinkFault {
	for _, f := range d.gpu.sc.linkFaults {
		if f.GPU == d.gpu.index {
			return f
		}
	}
	return nil
}

// linkDown says whether link l is down now.
func (d *demoDevice) linkDown(l int) bool {
	f := d.linkFault()
	return f != nil && f.Link == l && f.DownAt > 0 && float64(d.time.now()) >= f.DownAt*1e6
}

// linkErrors gives link l's CRC, replay and recovery counts now.
func (d *demoDevice) linkErrors(l int) (crc, replay, recovery float64) {
	f := d.linkFault()
	if f == nil || f.Link != l {
		return 0, 0, 0
	}
	secs := float64(d.time.now()) / 1e6
	if f.DownAt > 0 {
		if secs >= f.DownAt {
			recovery = 1
		}
		secs = min(secs, f.DownAt)
	}
	if secs > f.CRCAt {
		crc = math.Floor((secs - f.CRCAt) * f.CRCPerSec)
	}
	return crc, math.Floor(crc / 10), recovery
}

// linkBytes is link l's share of the GPU's NVLink data sent (tx) or
// received, given the GPU's totals now: an even share while every link is
// up; after a link went down, it keeps what it carried until then and its
// peers share the rest.
func (d *demoDevice) linkBytes(l int, t gpuTotals, tx bool) float64 {
	total := t.NVLinkRx
	if tx {
		total = t.NVLinkTx
	}
	f := d.linkFault()
	if f == nil || f.DownAt <= 0 || float64(d.time.now()) < f.DownAt*1e6 {
		return total / h100Links
	}
	f.once.Do(func() {
		dt := d.gpu.totals.at(int64(f.DownAt * 1e6))
		f.downTx, f.downRx = dt.NVLinkTx, dt.NVLinkRx
	})
	before := f.downRx
	if tx {
		before = f.downTx
	}
	if l == f.Link {
		return before / h100Links
	}
	return before/h100Links + (total-before)/(h100Links-1)
}

// GetNvLinkState says which of the 18 links are up.
func (d *demoDevice) GetNvLinkState(l int) (nvml.EnableState, nvml.Return) {
	if d.gone() {
		return 0, nvml.ERROR_GPU_IS_LOST
	}
	if l < 0 || l >= h100Links {
		return 0, nvml.ERROR_INVALID_ARGUMENT
	}
	if d.linkDown(l) {
		return nvml.FEATURE_DISABLED, nvml.SUCCESS
	}
	return nvml.FEATURE_ENABLED, nvml.SUCCESS
}

// nvlinkField answers an NVLink field (see probes/nvidia/nvml_nvlink.go): ok is
// false for a field that is not one.
func (d *demoDevice) nvlinkField(v *nvml.FieldValue, t gpuTotals) (x float64, ret nvml.Return, ok bool) {
	all := v.ScopeId == math.MaxUint32
	l := int(v.ScopeId)
	if !all && l >= h100Links {
		switch v.FieldId {
		case nvml.FI_DEV_NVLINK_GET_STATE, nvml.FI_DEV_NVLINK_ERROR_DL_CRC, nvml.FI_DEV_NVLINK_ERROR_DL_REPLAY,
			nvml.FI_DEV_NVLINK_ERROR_DL_RECOVERY, nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_TX, nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_RX:
			return 0, nvml.ERROR_INVALID_ARGUMENT, true
		}
	}
	sum := func(of func(l int) float64) float64 {
		n := 0.0
		for l := range h100Links {
			n += of(l)
		}
		return n
	}
	switch v.FieldId {
	case nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_TX, nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_RX:
		tx := v.FieldId == nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_TX
		if all {
			if tx {
				return math.Floor(t.NVLinkTx / 1024), nvml.SUCCESS, true // KiB
			}
			return math.Floor(t.NVLinkRx / 1024), nvml.SUCCESS, true
		}
		return math.Floor(d.linkBytes(l, t, tx) / 1024), nvml.SUCCESS, true
	case nvml.FI_DEV_NVLINK_GET_STATE:
		if d.linkDown(l) {
			return nvml.NVLINK_STATE_INACTIVE, nvml.SUCCESS, true
		}
		return nvml.NVLINK_STATE_ACTIVE, nvml.SUCCESS, true
	case nvml.FI_DEV_NVLINK_ERROR_DL_CRC:
		crc, _, _ := d.linkErrors(l)
		return crc, nvml.SUCCESS, true
	case nvml.FI_DEV_NVLINK_ERROR_DL_REPLAY:
		_, replay, _ := d.linkErrors(l)
		return replay, nvml.SUCCESS, true
	case nvml.FI_DEV_NVLINK_ERROR_DL_RECOVERY:
		_, _, recovery := d.linkErrors(l)
		return recovery, nvml.SUCCESS, true
	case nvml.FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL:
		return sum(func(l int) float64 { c, _, _ := d.linkErrors(l); return c }), nvml.SUCCESS, true
	case nvml.FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL:
		return sum(func(l int) float64 { _, r, _ := d.linkErrors(l); return r }), nvml.SUCCESS, true
	case nvml.FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL:
		return sum(func(l int) float64 { _, _, r := d.linkErrors(l); return r }), nvml.SUCCESS, true
	}
	return 0, 0, false
}
