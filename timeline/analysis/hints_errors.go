package analysis

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
	"github.com/gputop-dev/gputop/timeline/xid"
)

// Rules about the hardware itself, judged from events rather than windows
// of load: gpu-error (the driver reported an Xid; the GPU may have fallen
// off the bus) and link-degraded (a PCIe link below its generation or
// width while the GPU works; an NVLink link down, erring or carrying far
// less than its peers, hints_nvlink.go). The Engine logs what they need as samples
// arrive (healthLog.add) and they run after the windowed rules.

// healthLog is what the Engine keeps for these rules.
type healthLog struct {
	xids []xidEvent
	lost map[int]time.Time // when each GPU was first reported lost
	// link is each GPU's PCIe link, per column of the Engine's frame, let
	// go of with the frame's columns (Engine.SetBudget).
	link map[int]*frame.Col[linkCol]
	nvl  map[int]*nvlinkLog // per GPU with NVLink (hints_nvlink.go)
	// nvlTouched is addNVLink's list of the GPUs a sample named, reused.
	nvlTouched []*nvlinkLog
	// nvlAt and pcieAt are the places of the values these rules read, in
	// the Deriver's layout: found once per layout (Engine.makePlans), not
	// by each of 574 names of every sample. The places of the links'
	// error counts are apart (nvlErrAt, their values' at nvlErrIdx): a
	// link's are unknown until it counts one, so most samples have none.
	nvlAt     []nvlPlace
	nvlErrAt  []nvlPlace
	nvlErrIdx []int32
	pcieAt    []pciePlace
}

// places finds where the NVLink and PCIe values are among the values of
// keys, a new layout of the Deriver's (Engine.makePlans).
func (h *healthLog) places(keys []timeline.Key) {
	h.nvlAt, h.nvlErrAt, h.nvlErrIdx, h.pcieAt = h.nvlAt[:0:0], h.nvlErrAt[:0:0], h.nvlErrIdx[:0:0], h.pcieAt[:0:0]
	for i, k := range keys {
		idx, ok := timeline.ParseGPUDevice(k.Device)
		if !ok {
			continue
		}
		if p, ok := nvlinkPlaces[k.Name]; ok {
			p.at, p.gpu = i, idx
			if p.what == nvlPerLink && p.part != partData {
				h.nvlErrAt, h.nvlErrIdx = append(h.nvlErrAt, p), append(h.nvlErrIdx, int32(i))
			} else {
				h.nvlAt = append(h.nvlAt, p)
			}
		} else if field, ok := pcieFieldOf[k.Name]; ok {
			h.pcieAt = append(h.pcieAt, pciePlace{at: i, gpu: idx, field: field})
		}
	}
}

// pciePlace is where one PCIe link value sits in the Deriver's layout,
// and which of a column's figures it sets: found once per layout, so
// that 512 GPUs' 2,048 of them a second are not told apart by name.
type pciePlace struct {
	at, gpu int
	field   uint8               // linkGen...
	lg      *frame.Col[linkCol] // the GPU's log, once a value made it
}

const (
	linkGen = iota
	linkWidth
	linkGenMax
	linkWidthMax
)

// pcieFieldOf is the figure each PCIe link metric sets.
var pcieFieldOf = map[string]uint8{timeline.GPUPCIeGen: linkGen, timeline.GPUPCIeWidth: linkWidth,
	timeline.GPUPCIeGenMax: linkGenMax, timeline.GPUPCIeWidthMax: linkWidthMax}

type xidEvent struct {
	at        time.Time
	gpu, code int
}

// linkCol is the link as seen in one column: the lowest generation and
// width, the highest maximum; 0 where unknown.
type linkCol struct{ gen, genMax, width, widthMax uint8 }

// add logs what a sample says of Xids (its markers), lost GPUs (its
// statuses) and PCIe and NVLink links (its values, at their places), into
// column col.
func (h *healthLog) add(s *timeline.Sample, values []float64, col int) {
	for _, m := range s.Markers {
		if m.Origin != timeline.XidOrigin {
			continue
		}
		if gpu, code, ok := xid.ParseMarker(m.Text); ok {
			h.xids = append(h.xids, xidEvent{at: m.At, gpu: gpu, code: code})
		}
	}
	for _, ps := range s.Probes {
		if ps.State != timeline.ProbeLost {
			continue
		}
		if idx, ok := timeline.ParseGPUDevice(ps.Device); ok {
			if h.lost == nil {
				h.lost = map[int]time.Time{}
			}
			if _, seen := h.lost[idx]; !seen {
				h.lost[idx] = s.At
			}
		}
	}
	h.addNVLink(values, col)
	h.addPCIe(values, col)
}

// addPCIe logs a sample's PCIe link values (at their places, h.pcieAt)
// into column col: the lowest generation and width, the highest maxima.
// Each place keeps its GPU's log, found once per layout, not in a map at
// every sample.
func (h *healthLog) addPCIe(values []float64, col int) {
	for i := range h.pcieAt {
		p := &h.pcieAt[i]
		v := values[p.at]
		if math.IsNaN(v) || v < 1 || v > 64 {
			continue
		}
		lg := p.lg
		if lg == nil {
			lg = entryOf(&h.link, p.gpu, frame.NewCol(0, linkCol{}))
			p.lg = lg
		}
		for lg.Len() <= col {
			lg.Append(linkCol{})
		}
		c, x := lg.At(col), uint8(v)
		switch p.field {
		case linkGen:
			c.gen = lowestOf(c.gen, x)
		case linkWidth:
			c.width = lowestOf(c.width, x)
		case linkGenMax:
			c.genMax = max(c.genMax, x)
		case linkWidthMax:
			c.widthMax = max(c.widthMax, x)
		}
		lg.Set(col, c)
	}
}

// entryOf is GPU idx's entry in m (its PCIe or NVLink log, a count kept
// of it), made a copy of fresh, and m made, the first time it is asked
// for.
func entryOf[T any](m *map[int]*T, idx int, fresh T) *T {
	if *m == nil {
		*m = map[int]*T{}
	}
	e := (*m)[idx]
	if e == nil {
		e = new(T)
		*e = fresh
		(*m)[idx] = e
	}
	return e
}

// lowestOf is the lower of a figure and x, where 0 is no figure yet.
func lowestOf(figure, x uint8) uint8 {
	if figure == 0 {
		return x
	}
	return min(figure, x)
}

// gpuErrors adds gpu-error to out: every Xid the driver reported up to
// the view's end, one episode per GPU, with each code's meaning from the
// catalogue (xid.Lookup), and whether the GPU was lost after. Critical
// when an Xid is one the GPU cannot go on from, or the GPU is gone, and
// then ongoing to the view's end; a warning, ended at the Xid, otherwise.
func (h *healthLog) gpuErrors(f *frame.Frame, out []timeline.Hint) []timeline.Hint {
	end := f.Time(f.N)
	last := f.EndAt(f.N) // where a hint ongoing at the view's end ends
	byGPU := map[int][]xidEvent{}
	var order []int
	for _, x := range h.xids {
		if !x.at.Before(end) {
			continue
		}
		if _, ok := byGPU[x.gpu]; !ok {
			order = append(order, x.gpu)
		}
		byGPU[x.gpu] = append(byGPU[x.gpu], x)
	}
	var fd finding
	for _, gpu := range order {
		xs := byGPU[gpu]
		sev := timeline.Warning
		var parts []string
		var memory, app, link, fatal bool
		for _, x := range xs {
			s := fmt.Sprintf("Xid %d", x.code)
			if c, ok := xid.Lookup(x.code); ok {
				s += " (" + c.Meaning + ")"
				if c.Fatal {
					sev, fatal = timeline.Critical, true
				}
				memory, app, link = memory || c.Memory, app || c.App, link || x.code == 74
			}
			parts = append(parts, s+" at "+f.Into(x.at))
		}
		ev := units.GPUs([]int{gpu}) + " " + strings.Join(parts, ", then ")
		epEnd := xs[len(xs)-1].at.Add(f.Step)
		if epEnd.After(last) {
			epEnd = last
		}
		ongoing := false
		lostAt, lost := h.lost[gpu]
		lost = lost && lostAt.Before(end)
		if lost {
			ev += "; lost (not answering NVML) since " + f.Into(lostAt)
			sev = timeline.Critical
			epEnd, ongoing = last, true
		} else if fatal {
			// An uncorrectable error (a double-bit ECC error, say) is not
			// over when the driver has reported it: the GPU stays in error
			// until it is reset, which no sample shows, so it holds to the
			// end rather than reading as "ended" a second later.
			ev += "; it holds until the GPU is reset"
			epEnd, ongoing = last, true
		}
		fd.add(timeline.Hint{
			ID: timeline.HintGPUError, Severity: sev, GPUs: []int{gpu},
			Start: xs[0].at, End: epEnd, Evidence: ev,
			Suggestion: xidSuggestion(memory, app, link, lost),
			Confidence: 1,
		}, true, ongoing)
	}
	return fd.appendTo(out, f)
}

func xidSuggestion(memory, app, link, lost bool) string {
	var s []string
	switch {
	case lost:
		s = append(s, "The GPU is gone from the bus: its job's rank has failed and the others will hang in their next "+
			"collective. Drain the node; a GPU reset (`nvidia-smi -r`) or a reboot brings it back; if it recurs, check the "+
			"card's seating, power cables and cooling, then the node's PCIe errors (`dmesg`, `lspci -vv`).")
	case memory:
		s = append(s, "A GPU memory (ECC) error: check `nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT`; a pending "+
			"row remap or retired page takes effect after a GPU reset, and a GPU whose errors recur needs service.")
	}
	if app && !lost {
		s = append(s, "Xid 13, 31 and 43 are most often the application's own fault (an illegal memory access, a kernel "+
			"that faulted): read the job's error first, and suspect the GPU only if they recur across jobs.")
	}
	if link && !lost {
		s = append(s, "An NVLink error: check `nvidia-smi nvlink -e` for the link's error counters.")
	}
	if len(s) == 0 {
		s = append(s, "Look the Xid up in NVIDIA's Xid catalogue and check `dmesg` for the driver's full message.")
	}
	return strings.Join(s, " ")
}

// linkEpisode adds to fd an episode of link-degraded on GPU gpu over
// columns [lo, hi): a warning, ongoing where it reaches the view's last
// column.
func (fd *finding) linkEpisode(f *frame.Frame, gpu, lo, hi int, ev string, conf float64, sug string) {
	fd.add(timeline.Hint{ID: timeline.HintLinkDegraded, Severity: timeline.Warning, GPUs: []int{gpu},
		Start: f.StartAt(lo), End: f.EndAt(hi), Evidence: ev, Suggestion: sug, Confidence: conf},
		hi < f.Closed(), hi >= f.N-1)
}

// linkDegradedMin is the least time a GPU must work on a degraded link for
// link-degraded to say so: a Window, as the windowed rules judge.
func linkDegradedMin(f *frame.Frame) int { return max(1, int(f.Opts.Window/f.Step)) }

// keptCount is a GPU's count of its columns below upto (countOnce).
type keptCount[T any] struct {
	t    T
	upto int
}

// countOnce is GPU g's count of its columns below n: fresh, with count
// adding columns [from, to) to it. The Engine's own view (Frame.Now)
// counts each closed column once and keeps the count with the rules'
// verdicts, under key, so that what the columns let go of (SetBudget)
// counted stays counted; only the open column is counted afresh. Another
// view counts the columns held.
func countOnce[T any](f *frame.Frame, key string, g *frame.GPU, n int, fresh T, count func(t *T, from, to int)) T {
	t, upto := fresh, f.HeldFrom
	if f.Now() {
		k := entryOf(frame.Keep[map[int]*keptCount[T]](f, key), g.Index, keptCount[T]{fresh, f.HeldFrom})
		if from, to := max(k.upto, f.HeldFrom), min(n, f.Closed()); from < to {
			count(&k.t, from, to)
			k.upto = to
		}
		t, upto = k.t, k.upto
	}
	if from := max(upto, f.HeldFrom); from < n {
		count(&t, from, n)
	}
	return t
}

// linkTally is what link-degraded counts of a GPU's columns: those where
// it works on a known link, and those of them below the link's maximum,
// and the worst link.
type linkTally struct {
	known, bad colSpan
	worst      linkCol
}

// count counts columns [from, to) of GPU g's link log cols.
func (t *linkTally) count(g *frame.GPU, cols *frame.Col[linkCol], from, to int) {
	for i := from; i < to; i++ {
		c := cols.At(i)
		if !g.Working(i) || c.gen == 0 || c.genMax == 0 || c.width == 0 || c.widthMax == 0 {
			continue
		}
		t.known.mark(i)
		if c.gen >= c.genMax && c.width >= c.widthMax {
			continue
		}
		if t.bad.count == 0 || int(c.width)*int(c.gen) < int(t.worst.width)*int(t.worst.gen) {
			t.worst = c
		}
		t.bad.mark(i)
	}
}

// linkDegraded adds link-degraded to out: a GPU working (low or busy) on
// a PCIe link below its maximum generation or width, for at least a Window
// in all and at least half of its working time where the link is known.
// Not while idle: NVIDIA GPUs drop their PCIe generation when idle to save
// power, which is no fault. A warning: it caps host-device transfers.
func (h *healthLog) linkDegraded(f *frame.Frame, out []timeline.Hint) []timeline.Hint {
	var fd finding
	for _, g := range f.GPUs {
		cols, n := h.link[g.Index], 0
		if cols != nil {
			n = min(cols.Len(), f.N, g.State.Len())
		}
		t := countOnce(f, timeline.HintLinkDegraded, g, n, linkTally{},
			func(t *linkTally, from, to int) { t.count(g, cols, from, to) })
		h.nvlinkEpisodes(f, g, &fd)
		if t.bad.count < linkDegradedMin(f) || 2*t.bad.count < t.known.count {
			continue
		}
		ev := fmt.Sprintf("%s PCIe link at Gen%d x%d of Gen%d x%d while working, %s of %s working",
			units.GPUs([]int{g.Index}), t.worst.gen, t.worst.width, t.worst.genMax, t.worst.widthMax, t.bad.held(f), t.known.held(f))
		fd.linkEpisode(f, g.Index, t.bad.lo, t.bad.hi, ev, 0.9, "The link trained below what the GPU and slot allow: reseat the "+
			"card (and its riser), check the slot's lane setting in the BIOS, and compare LnkSta with LnkCap in `lspci -vv` "+
			"or `nvidia-smi -q -d PCIE`. It caps host-to-GPU copies (data loading, offload, checkpoints).")
	}
	return fd.appendTo(out, f)
}
