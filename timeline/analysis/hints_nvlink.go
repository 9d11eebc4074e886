package analysis

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
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

// linkErrs is one link's error counts.
type linkErrs struct{ crc, replay, recovery float64 }

func (e linkErrs) total() float64 { return e.crc + e.replay + e.recovery }

type errPoint struct {
	col  int
	link int
	e    linkErrs
}

// nvlinkLog is a GPU's links over the session: columns as runs of equal
// ones (a link's state changes seldom), and each link's error counts where
// they changed.
type nvlinkLog struct {
	runs   []nvlRun
	col    int // the column being filled, -1 before any
	cur    nvlCol
	errs   []errPoint
	last   map[int]linkErrs // each link's last counts
	clean  uint64           // links seen with no errors counted (their counts started at 0 in the session)
	rates  [timeline.NVLinkMaxLinks]float64
	hasErr uint64 // links whose counts were seen
}

// nvlinkKey says what a per-link display metric is: its link and part.
type nvlinkKey struct {
	link int
	part string
}

var nvlinkKeys = func() map[string]nvlinkKey {
	m := map[string]nvlinkKey{}
	for l, k := range timeline.NVLinks {
		m[k.CRC] = nvlinkKey{l, "crc"}
		m[k.Replay] = nvlinkKey{l, "replay"}
		m[k.Recovery] = nvlinkKey{l, "recovery"}
		m[k.Data] = nvlinkKey{l, "data"}
	}
	return m
}()

// addNVLink logs a sample's NVLink values into column col.
func (h *healthLog) addNVLink(values []timeline.Value, col int) {
	type gpuSample struct {
		log            *nvlinkLog
		links, down    float64
		errLinks       float64
		errs           map[int]linkErrs
		rates          map[int]float64
		sawDown, sawEL bool
	}
	var per map[int]*gpuSample
	get := func(dev string) *gpuSample {
		idx, ok := timeline.ParseGPUDevice(dev)
		if !ok {
			return nil
		}
		if per == nil {
			per = map[int]*gpuSample{}
		}
		g := per[idx]
		if g == nil {
			if h.nvl == nil {
				h.nvl = map[int]*nvlinkLog{}
			}
			lg := h.nvl[idx]
			if lg == nil {
				lg = &nvlinkLog{col: -1, last: map[int]linkErrs{}}
				h.nvl[idx] = lg
			}
			g = &gpuSample{log: lg, links: math.NaN(), down: math.NaN(), errLinks: math.NaN()}
			per[idx] = g
		}
		return g
	}
	for _, v := range values {
		name := v.Key.Name
		if !strings.HasPrefix(name, "gpu.nvlink_") {
			continue
		}
		switch name {
		case timeline.GPUNVLinkLinks:
			if g := get(v.Key.Device); g != nil {
				g.links = v.Value
			}
			continue
		case timeline.GPUNVLinkDown:
			if g := get(v.Key.Device); g != nil {
				g.down, g.sawDown = v.Value, true
			}
			continue
		case timeline.GPUNVLinkErrLinks:
			if g := get(v.Key.Device); g != nil {
				g.errLinks, g.sawEL = v.Value, true
			}
			continue
		}
		k, ok := nvlinkKeys[name]
		if !ok {
			continue
		}
		g := get(v.Key.Device)
		if g == nil {
			continue
		}
		if k.part == "data" {
			if g.rates == nil {
				g.rates = map[int]float64{}
			}
			g.rates[k.link] = v.Value
			continue
		}
		if math.IsNaN(v.Value) {
			continue
		}
		if g.errs == nil {
			g.errs = map[int]linkErrs{}
		}
		e := g.errs[k.link]
		switch k.part {
		case "crc":
			e.crc = v.Value
		case "replay":
			e.replay = v.Value
		case "recovery":
			e.recovery = v.Value
		}
		g.errs[k.link] = e
	}
	for _, g := range per {
		if math.IsNaN(g.links) || g.links <= 0 {
			continue
		}
		g.log.add(col, g.links, g.down, g.errLinks, g.errs, g.rates)
	}
}

// add logs one sample of a GPU's links.
func (lg *nvlinkLog) add(col int, linksV, downV, errLinksV float64, errs map[int]linkErrs, rates map[int]float64) {
	links := uint64(linksV)
	c := nvlCol{links: links}
	if !math.IsNaN(downV) && downV >= 0 {
		c.down, c.known = uint64(downV)&links, true
	}
	// Which links carry far less than their peers, while they are busy.
	up := links &^ c.down
	var rs []float64
	for l := range timeline.NVLinkMaxLinks {
		if up&(1<<l) == 0 {
			continue
		}
		r, ok := rates[l]
		if !ok || math.IsNaN(r) {
			rs = nil
			break
		}
		rs = append(rs, r)
	}
	if c.known && len(rs) >= 2 {
		slices.Sort(rs)
		med := rs[len(rs)/2]
		if med >= nvlinkBusyRate {
			c.busy = true
			for l := range timeline.NVLinkMaxLinks {
				if up&(1<<l) != 0 && rates[l] < nvlinkLowShare*med {
					c.low |= 1 << l
				}
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
	if !math.IsNaN(errLinksV) && errLinksV >= 0 {
		lg.clean |= links &^ uint64(errLinksV)
	}
	for l, e := range errs {
		prev, seen := lg.last[l]
		if !seen {
			if lg.clean&(1<<l) != 0 {
				lg.errs = append(lg.errs, errPoint{col: col, link: l})
			}
			lg.errs = append(lg.errs, errPoint{col: col, link: l, e: e})
			lg.last[l] = e
			continue
		}
		if e != prev {
			lg.errs = append(lg.errs, errPoint{col: col, link: l, e: e})
			lg.last[l] = e
		}
	}
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

// each calls fn for each column below n, with what its links did.
func (lg *nvlinkLog) each(n int, fn func(i int, c nvlCol)) {
	runs := lg.runs
	if lg.col >= 0 && (len(runs) == 0 || runs[len(runs)-1].col < lg.col) {
		runs = append(runs[:len(runs):len(runs)], nvlRun{col: lg.col, c: lg.cur})
	}
	for k, r := range runs {
		end := n
		if k+1 < len(runs) {
			end = min(n, runs[k+1].col)
		}
		if r.col == lg.col {
			end = min(n, r.col+1)
		}
		for i := r.col; i < end; i++ {
			fn(i, r.c)
		}
	}
}

// nvlinkEpisodes adds link-degraded's NVLink episodes of GPU g to fd.
func (h *healthLog) nvlinkEpisodes(f *hintFrame, g *hintGPU, fd *finding) {
	lg := h.nvl[g.index]
	if lg == nil {
		return
	}
	n := min(f.n, len(g.state))
	type span struct{ count, lo, hi, of int }
	var down, low [timeline.NVLinkMaxLinks]span
	peers := 0
	lg.each(n, func(i int, c nvlCol) {
		if !g.working(i) || !c.known {
			return
		}
		up := c.links &^ c.down
		for l := range timeline.NVLinkMaxLinks {
			bit := uint64(1) << l
			if c.links&bit == 0 {
				continue
			}
			down[l].of++
			if c.down&bit != 0 && up != 0 {
				s := &down[l]
				if s.count == 0 {
					s.lo = i
				}
				s.count, s.hi = s.count+1, i+1
				peers = bitsIn(up)
			}
			if c.busy {
				low[l].of++
				if c.low&bit != 0 {
					s := &low[l]
					if s.count == 0 {
						s.lo = i
					}
					s.count, s.hi = s.count+1, i+1
				}
			}
		}
	})
	name := units.GPUs([]int{g.index})
	for l := range timeline.NVLinkMaxLinks {
		s := down[l]
		if s.count < f.linkDegradedMin() {
			continue
		}
		ev := fmt.Sprintf("%s NVLink %d down while its %s up, %s of %s working", name, l,
			units.Count(peers, "peer is", "peers are"), units.Duration(time.Duration(s.count)*f.step),
			units.Duration(time.Duration(s.of)*f.step))
		fd.add(timeline.Hint{
			ID: timeline.HintLinkDegraded, Severity: timeline.Warning, GPUs: []int{g.index},
			Start: f.time(s.lo), End: f.time(s.hi), Evidence: ev,
			Suggestion: "An NVLink link is down: collectives go over the GPU's other links (and slower). Check " +
				"`nvidia-smi nvlink -s` and `nvidia-smi nvlink -e`; a GPU reset brings a link back if it can train; " +
				"one that stays down needs the baseboard or the NVSwitch tray looked at.",
			Confidence: 1,
		}, s.hi < f.closed(), s.hi >= f.n-1)
	}
	for l := range timeline.NVLinkMaxLinks {
		s := low[l]
		if s.count < f.linkDegradedMin() || 2*s.count < s.of {
			continue
		}
		ev := fmt.Sprintf("%s NVLink %d carries under a quarter of its peers' traffic while NVLink is busy, %s of %s",
			name, l, units.Duration(time.Duration(s.count)*f.step), units.Duration(time.Duration(s.of)*f.step))
		fd.add(timeline.Hint{
			ID: timeline.HintLinkDegraded, Severity: timeline.Warning, GPUs: []int{g.index},
			Start: f.time(s.lo), End: f.time(s.hi), Evidence: ev,
			Suggestion: "One link carries far less than its peers: it may have trained at a lower speed or be " +
				"retrying. Compare `nvidia-smi nvlink -s` across the links and watch `nvidia-smi nvlink -e`.",
			Confidence: 0.8,
		}, s.hi < f.closed(), s.hi >= f.n-1)
	}
	h.nvlinkErrorEpisodes(f, g, lg, n, fd)
}

// nvlinkErrorEpisodes adds an episode for each link whose errors grew by
// nvlinkErrorsMin or more (or by any recovery) before column n.
func (h *healthLog) nvlinkErrorEpisodes(f *hintFrame, g *hintGPU, lg *nvlinkLog, n int, fd *finding) {
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
		d := linkErrs{s.last.crc - s.base.crc, s.last.replay - s.base.replay, s.last.recovery - s.base.recovery}
		if d.total() < nvlinkErrorsMin && d.recovery <= 0 {
			continue
		}
		var parts []string
		for _, c := range []struct {
			n          float64
			noun, many string
		}{{d.crc, "CRC error", "CRC errors"}, {d.replay, "replay", "replays"}, {d.recovery, "recovery", "recoveries"}} {
			if c.n > 0 {
				parts = append(parts, units.Count(int(c.n), c.noun, c.many))
			}
		}
		hi := s.lastAt + 1
		ev := fmt.Sprintf("%s NVLink %d: %s in %s", units.GPUs([]int{g.index}), l, strings.Join(parts, ", "),
			units.Duration(time.Duration(hi-s.first)*f.step))
		fd.add(timeline.Hint{
			ID: timeline.HintLinkDegraded, Severity: timeline.Warning, GPUs: []int{g.index},
			Start: f.time(s.first), End: f.time(hi), Evidence: ev,
			Suggestion: "Errors counting on one NVLink link: the link retries (and slows) and may go down. Watch " +
				"`nvidia-smi nvlink -e`; if they keep counting, reseat or replace the link's cable or tray at the next " +
				"maintenance.",
			Confidence: 0.9,
		}, hi < f.closed(), hi >= f.n-1)
	}
}

func bitsIn(m uint64) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}
