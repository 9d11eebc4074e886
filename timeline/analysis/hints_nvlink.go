package analysis

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
)

// NVLink's part of link-degraded, per link (timeline/metrics_nvlink.go has
// what the probe records): a link down while its peers are up and the GPU
// works; errors counting on a link; a link that carries far less than its
// peers while the GPU's NVLink is busy. Never on a GPU without NVLink (it
// records no links) nor on an idle one (nothing to carry, and the error
// counters do not move without traffic).

const (
	// nvlinkBusyRate is the median rate of a GPU's links (both ways) from
	// which its NVLink counts as busy: well above the 1 GiB a tick that a
	// link's counter resolves (GiB), so that a link's share is measured.
	nvlinkBusyRate = 4 << 30
	// nvlinkLowShare: a link carrying less than this share of its peers'
	// median while NVLink is busy carries "far less".
	nvlinkLowShare = 0.25
	// nvlinkErrorsMin is how many errors (CRC, replay and recovery
	// together) a link must count within the view for link-degraded: a
	// stray CRC error is retried and harmless; a run of them is a link
	// going bad. Any recovery (the link retrained) counts at once.
	nvlinkErrorsMin = 10
)

// nvlCol is what a GPU's links did in one column: the links it has, those
// down in any sample of it, and, while its NVLink was busy, those that
// carried far less than their peers.
type nvlCol struct {
	links, down, low uint64
	busy             bool
	known            bool // the down mask was known
}

type nvlRun struct {
	col int
	c   nvlCol
}

// linkErrs is one link's error counts, by part (partCRC, partReplay,
// partRecovery).
type linkErrs [partData]float64

func (e linkErrs) total() float64 { return e[partCRC] + e[partReplay] + e[partRecovery] }

type errPoint struct {
	col  int
	link int
	e    linkErrs
}

// nvlinkLog is a GPU's links over the session: columns as runs of equal
// ones (a link's state changes seldom), and each link's error counts where
// they changed.
type nvlinkLog struct {
	runs  []nvlRun
	col   int // the column being filled, -1 before any
	cur   nvlCol
	errs  []errPoint
	last  [timeline.NVLinkMaxLinks]linkErrs // each link's last counts
	seen  uint64                            // links whose counts were seen
	clean uint64                            // links seen with no errors counted (their counts started at 0 in the session)
	// smp is the sample being read (addNVLink), kept here so that reading
	// one allocates nothing.
	smp     nvlSample
	touched bool
}

// nvlSample is what one sample says of a GPU's links.
type nvlSample struct {
	links, down, errLinks float64
	rated, erred          uint64 // links with a rate, with counts, in this sample
	rates                 [timeline.NVLinkMaxLinks]float64
	errs                  [timeline.NVLinkMaxLinks]linkErrs
}

const (
	partCRC = iota
	partReplay
	partRecovery
	partData
)

// nvlPlace is where one NVLink value sits in the Deriver's layout, and
// what it says: found once per layout (healthLog.places).
type nvlPlace struct {
	at   int // in the values
	gpu  int // the GPU's NVML index
	what uint8
	part uint8      // for nvlPerLink: which of the link's figures (partCRC...)
	link int        // for nvlPerLink
	lg   *nvlinkLog // the GPU's log, once a value made it
}

const (
	nvlLinks = iota
	nvlDown
	nvlErrLinks
	nvlPerLink
)

// nvlinkPlaces is what each NVLink metric these rules read says: a GPU's
// links, those down or erring, or one link's part.
var nvlinkPlaces = func() map[string]nvlPlace {
	m := map[string]nvlPlace{timeline.GPUNVLinkLinks: {what: nvlLinks}, timeline.GPUNVLinkDown: {what: nvlDown},
		timeline.GPUNVLinkErrLinks: {what: nvlErrLinks}}
	for l, k := range timeline.NVLinks {
		// In the order of the part* constants.
		for part, name := range [...]string{k.CRC, k.Replay, k.Recovery, k.Data} {
			m[name] = nvlPlace{what: nvlPerLink, part: uint8(part), link: l}
		}
	}
	return m
}()

// addNVLink logs a sample's NVLink values (at their places, h.nvlAt and
// h.nvlErrAt) into column col.
func (h *healthLog) addNVLink(values []float64, col int) {
	h.nvlTouched = h.nvlTouched[:0]
	for pi := range h.nvlAt {
		p := &h.nvlAt[pi]
		v := values[p.at]
		sm := &h.touch(p).smp
		switch p.what {
		case nvlLinks:
			sm.links = v
		case nvlDown:
			sm.down = v
		case nvlErrLinks:
			sm.errLinks = v
		default: // a link's data rate
			l := p.link
			sm.rates[l], sm.rated = v, sm.rated|1<<l
		}
	}
	for j, at := range h.nvlErrIdx {
		v := values[at]
		if math.IsNaN(v) {
			continue // no count yet
		}
		p := &h.nvlErrAt[j]
		sm := &h.touch(p).smp
		l := p.link
		bit := uint64(1) << l
		if sm.erred&bit == 0 {
			sm.errs[l], sm.erred = linkErrs{}, sm.erred|bit
		}
		sm.errs[l][p.part] = v
	}
	for _, lg := range h.nvlTouched {
		lg.touched = false
		if !math.IsNaN(lg.smp.links) && lg.smp.links > 0 {
			lg.add(col)
		}
	}
}

// touch is the log of p's GPU, its sample begun afresh (nothing known of
// it) the first time this sample names it.
func (h *healthLog) touch(p *nvlPlace) *nvlinkLog {
	lg := p.lg
	if lg == nil {
		lg = entryOf(&h.nvl, p.gpu, nvlinkLog{col: -1})
		p.lg = lg
	}
	if !lg.touched {
		lg.touched = true
		lg.smp.links, lg.smp.down, lg.smp.errLinks = math.NaN(), math.NaN(), math.NaN()
		lg.smp.rated, lg.smp.erred = 0, 0
		h.nvlTouched = append(h.nvlTouched, lg)
	}
	return lg
}

// add logs the sample in smp, of column col.
func (lg *nvlinkLog) add(col int) {
	sm := &lg.smp
	links := uint64(sm.links)
	c := nvlCol{links: links}
	if !math.IsNaN(sm.down) && sm.down >= 0 {
		c.down, c.known = uint64(sm.down)&links, true
	}
	// Which links carry far less than their peers, while they are busy.
	up := links &^ c.down
	var buf [timeline.NVLinkMaxLinks]float64
	rs := buf[:0]
	for m := up; m != 0; m &= m - 1 {
		l := bits.TrailingZeros64(m)
		r := sm.rates[l]
		if sm.rated&(1<<l) == 0 || math.IsNaN(r) {
			rs = rs[:0]
			break
		}
		rs = append(rs, r)
	}
	if c.known && len(rs) >= 2 && busyMedian(rs) {
		slices.Sort(rs)
		med := rs[len(rs)/2]
		c.busy = true
		for m := up; m != 0; m &= m - 1 {
			if l := bits.TrailingZeros64(m); sm.rates[l] < nvlinkLowShare*med {
				c.low |= 1 << l
			}
		}
	}
	if col != lg.col {
		lg.commit()
		lg.col, lg.cur = col, c
	} else {
		// A column of several samples: a link down in any is down in it.
		c.down |= lg.cur.down
		c.known = c.known || lg.cur.known
		lg.cur = c
	}
	// Errors: a link's counts are recorded only once it has counted one;
	// a link clear in a known mask counted none then.
	if !math.IsNaN(sm.errLinks) && sm.errLinks >= 0 {
		lg.clean |= links &^ uint64(sm.errLinks)
	}
	for m := sm.erred; m != 0; m &= m - 1 {
		l := bits.TrailingZeros64(m)
		e, bit := sm.errs[l], uint64(1)<<l
		first := lg.seen&bit == 0
		if first && lg.clean&bit != 0 {
			lg.errs = append(lg.errs, errPoint{col: col, link: l})
		}
		if first || e != lg.last[l] {
			lg.errs = append(lg.errs, errPoint{col: col, link: l, e: e})
			lg.last[l], lg.seen = e, lg.seen|bit
		}
	}
}

// busyMedian says whether the median of rates (rates[len/2] sorted, no
// NaN among them) is nvlinkBusyRate or more: whether as many of them as
// lie from the median up are. Most samples' links are not busy, and need
// no sort to say so.
func busyMedian(rates []float64) bool {
	n := 0
	for _, r := range rates {
		if r >= nvlinkBusyRate {
			n++
		}
	}
	return n >= len(rates)-len(rates)/2
}

// commit closes the column being filled into the runs.
func (lg *nvlinkLog) commit() {
	if lg.col < 0 {
		return
	}
	if n := len(lg.runs); n > 0 && lg.runs[n-1].c == lg.cur {
		return
	}
	lg.runs = append(lg.runs, nvlRun{col: lg.col, c: lg.cur})
}

// release lets go of the runs that end at or before column from, and
// starts the first one kept at from: the Engine let go of the columns
// before it (Engine.keepWithin), and a day of 64 hosts' links changing
// their state every minute or so is 27 MB of runs.
func (lg *nvlinkLog) release(from int) {
	drop := 0
	for drop < len(lg.runs) && lg.end(drop) <= from {
		drop++
	}
	lg.runs = append(lg.runs[:0], lg.runs[drop:]...)
	if len(lg.runs) > 0 && lg.runs[0].col < from {
		lg.runs[0].col = from
	}
}

// end is where run i ends: where the next begins, or for the last, where
// the column being filled begins.
func (lg *nvlinkLog) end(i int) int {
	if i+1 < len(lg.runs) {
		return lg.runs[i+1].col
	}
	return lg.col
}

// each calls fn for each run of equal columns below n, as the columns
// [lo, hi) it covers, and then for the column being filled.
func (lg *nvlinkLog) each(n int, fn func(lo, hi int, c nvlCol)) {
	k := len(lg.runs)
	for i, r := range lg.runs {
		if r.col >= n {
			k = i
			break
		}
		if end := min(lg.end(i), n); end > r.col {
			fn(r.col, end, r.c)
		}
	}
	if lg.col >= 0 && lg.col < n && k == len(lg.runs) {
		fn(lg.col, lg.col+1, lg.cur)
	}
}

// nvlinkTally is what nvlinkEpisodes counts of a GPU's columns: those it
// works in and those its NVLink is busy in, and for each link
// those where it was down while a peer was up, or carried under a quarter
// of its peers' traffic (peers: how many were up, at the last link down).
type nvlinkTally struct {
	down, low     [timeline.NVLinkMaxLinks]colSpan
	working, busy colSpan
	peers         int
}

// colSpan counts columns, with the first of them and the one after the
// last, for how long they lasted within the session (held).
type colSpan struct{ count, lo, hi int }

func (s *colSpan) mark(i int) {
	if s.count == 0 {
		s.lo = i
	}
	s.count, s.hi = s.count+1, i+1
}

// held is how long the columns lasted within the session (Frame.Cols).
func (s colSpan) held(f *frame.Frame) string { return units.Duration(f.Cols(s.count, s.lo, s.hi-1)) }

// count counts columns [from, to) of GPU g's NVLink log lg.
func (t *nvlinkTally) count(g *frame.GPU, lg *nvlinkLog, from, to int) {
	lg.each(to, func(lo, hi int, c nvlCol) {
		lo = max(lo, from)
		if !c.known || lo >= hi {
			return
		}
		up := c.links &^ c.down
		downNow := c.down
		if up == 0 {
			downNow = 0 // no peer up to compare with
		}
		for i := lo; i < hi; i++ {
			if !g.Working(i) {
				continue
			}
			t.working.mark(i)
			for m := downNow; m != 0; m &= m - 1 {
				t.down[bits.TrailingZeros64(m)].mark(i)
				t.peers = bits.OnesCount64(up)
			}
			if c.busy {
				t.busy.mark(i)
				for m := c.low; m != 0; m &= m - 1 {
					t.low[bits.TrailingZeros64(m)].mark(i)
				}
			}
		}
	})
}

// nvlinkEpisodes adds link-degraded's NVLink episodes of GPU g to fd.
func (h *healthLog) nvlinkEpisodes(f *frame.Frame, g *frame.GPU, fd *finding) {
	lg := h.nvl[g.Index]
	if lg == nil {
		return
	}
	n := min(f.N, g.State.Len())
	h.nvlinkErrorEpisodes(f, g, lg, n, fd)
	if !f.Now() {
		// Most sessions never see a link down or idler than its peers:
		// then the runs say so without a walk over every column. (The
		// Engine's own view keeps its count, and walks only the columns
		// closed since.)
		any := false
		lg.each(n, func(lo, hi int, c nvlCol) {
			any = any || c.known && (c.down != 0 && c.links&^c.down != 0 || c.low != 0)
		})
		if !any {
			return
		}
	}
	t := countOnce(f, "nvlink-links", g, n, nvlinkTally{}, func(t *nvlinkTally, from, to int) { t.count(g, lg, from, to) })
	name := units.GPUs([]int{g.Index})
	for l := range timeline.NVLinkMaxLinks {
		s := t.down[l]
		if s.count < linkDegradedMin(f) {
			continue
		}
		ev := fmt.Sprintf("%s NVLink %d down while its %s up, %s of %s working", name, l,
			units.Count(t.peers, "peer is", "peers are"), s.held(f), t.working.held(f))
		fd.linkEpisode(f, g.Index, s.lo, s.hi, ev, 1, "An NVLink link is down: collectives go over the GPU's other links "+
			"(and slower). Check `nvidia-smi nvlink -s` and `nvidia-smi nvlink -e`; a GPU reset brings a link back if it "+
			"can train; one that stays down needs the baseboard or the NVSwitch tray looked at.")
	}
	for l := range timeline.NVLinkMaxLinks {
		s := t.low[l]
		if s.count < linkDegradedMin(f) || 2*s.count < t.busy.count {
			continue
		}
		ev := fmt.Sprintf("%s NVLink %d carries under a quarter of its peers' traffic while NVLink is busy, %s of %s",
			name, l, s.held(f), t.busy.held(f))
		fd.linkEpisode(f, g.Index, s.lo, s.hi, ev, 0.8, "One link carries far less than its peers: it may have trained "+
			"at a lower speed or be retrying. Compare `nvidia-smi nvlink -s` across the links and watch `nvidia-smi nvlink -e`.")
	}
}

// nvlinkErrorEpisodes adds an episode for each link whose errors grew by
// nvlinkErrorsMin or more (or by any recovery) before column n.
func (h *healthLog) nvlinkErrorEpisodes(f *frame.Frame, g *frame.GPU, lg *nvlinkLog, n int, fd *finding) {
	type growth struct {
		base, last    linkErrs
		seen          bool
		first, lastAt int // columns of the first and last rise
	}
	var gr [timeline.NVLinkMaxLinks]growth
	for _, p := range lg.errs {
		if p.col >= n {
			break
		}
		s := &gr[p.link]
		if !s.seen {
			s.base, s.last, s.seen, s.first = p.e, p.e, true, -1
			continue
		}
		if p.e.total() > s.last.total() {
			if s.first < 0 {
				s.first = p.col
			}
			s.lastAt = p.col
		}
		s.last = p.e
	}
	for l := range timeline.NVLinkMaxLinks {
		s := gr[l]
		if !s.seen || s.first < 0 {
			continue
		}
		var d linkErrs
		for part := range d {
			d[part] = s.last[part] - s.base[part]
		}
		if d.total() < nvlinkErrorsMin && d[partRecovery] <= 0 {
			continue
		}
		var parts []string
		for part, c := range [...]struct{ noun, many string }{{"CRC error", "CRC errors"}, {"replay", "replays"}, {"recovery", "recoveries"}} {
			if d[part] > 0 {
				parts = append(parts, units.Count(int(d[part]), c.noun, c.many))
			}
		}
		hi := s.lastAt + 1
		ev := fmt.Sprintf("%s NVLink %d: %s in %s", units.GPUs([]int{g.Index}), l, strings.Join(parts, ", "),
			units.Duration(f.Held(frame.Span{Lo: s.first, Hi: hi})))
		fd.linkEpisode(f, g.Index, s.first, hi, ev, 0.9, "Errors counting on one NVLink link: the link retries (and "+
			"slows) and may go down. Watch `nvidia-smi nvlink -e`; if they keep counting, reseat or replace the link's "+
			"cable or tray at the next maintenance.")
	}
}
