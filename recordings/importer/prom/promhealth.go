package prom

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
	"github.com/gputop-dev/gputop/timeline/xid"
)

// A GPU's health, read back as the live probe records it, so that the
// analysis judges an import as it judges the live view (gpu-error,
// link-degraded: timeline/analysis/hints_errors.go, hints_nvlink.go):
//
//   - Xids become markers of origin timeline.XidOrigin, "GPU3 Xid 79: …"
//     with the session's GPU number, from gputop serve's marker series
//     (its Xid markers, at their own time) and from changes of
//     DCGM_FI_DEV_XID_ERRORS, the last Xid (dcgm-exporter's only record;
//     gputop's own when its marker was not the last of its scrape).
//   - gputop_gpu_lost becomes the GPU's probe status lost, on each sample
//     it is 1.
//   - NVLink: gputop_nvlink_links (a count) becomes the mask of link ids
//     0…n-1 (NVML numbers an H100's 18 links so), with any link a per-link
//     series names; gputop_nvlink_link_down{link} the mask of the links
//     down, known where gputop_nvlink_links_down is; the per-link error
//     counts DCGM_FI_DEV_NVLINK_{CRC_FLIT,REPLAY,RECOVERY}_ERROR_COUNT_L<n>
//     the links' counts, and the mask of links that counted any.
//
// What a history cannot give back: a lost GPU under dcgm-exporter (it has
// no such series: its Xid 79 still says the GPU fell off the bus), a
// second Xid of the same code in a row under dcgm-exporter (the gauge
// does not move), and each NVLink link's data rate (not exported), so
// "carries far less than its peers" is not judged.

// Series of gputop serve's that the assembly turns into something else
// than a metric of the same name.
const (
	promLostSeries      = "gputop_gpu_lost"
	promLinksSeries     = "gputop_nvlink_links"
	promLinksDownSeries = "gputop_nvlink_links_down"
	promLinkDownSeries  = "gputop_nvlink_link_down"
)

// dcgmLinks is how many links dcgm-exporter names per-link fields for.
const dcgmLinks = 18

// promLinkErrorQuery asks for every per-link error count in one query,
// not 54: one name per link and kind.
const promLinkErrorQuery = `{__name__=~"DCGM_FI_DEV_NVLINK_(CRC_FLIT|REPLAY|RECOVERY)_ERROR_COUNT_L([0-9]|1[0-7])"}`

// Parts of a per-link series.
const (
	partDown = iota
	partCRC
	partReplay
	partRecovery
)

// linkSlot is what a per-link series of a GPU is: its link and part.
type linkSlot struct {
	link int
	part uint8
}

// linkErrorNames maps each per-link error count's name to its slot.
var linkErrorNames = func() map[string]linkSlot {
	m := map[string]linkSlot{}
	for l := range dcgmLinks {
		id := strconv.Itoa(l)
		m["DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L"+id] = linkSlot{l, partCRC}
		m["DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L"+id] = linkSlot{l, partReplay}
		m["DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L"+id] = linkSlot{l, partRecovery}
	}
	return m
}()

// linkSlotOf says whether a series of this name and labels is a per-link
// one, and which.
func linkSlotOf(name string, labels map[string]string) (linkSlot, bool) {
	if s, ok := linkErrorNames[name]; ok {
		return s, true
	}
	if name != promLinkDownSeries {
		return linkSlot{}, false
	}
	l, ok := labelIndex(labels["link"], timeline.NVLinkMaxLinks-1)
	return linkSlot{l, partDown}, ok
}

// labelIndex reads a label that numbers something (a link, a MIG
// instance): a whole number from 0 to most, written as itself ("01" and
// "+1" are not 1).
func labelIndex(s string, most int) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0 && n <= most && strconv.Itoa(n) == s
}

// linkSeries is the index, in g.series, of the GPU's per-link series s,
// made at its first.
func (g *promGPU) linkSeries(s linkSlot) int {
	if i := slices.Index(g.links, s); i >= 0 {
		return len(promMetrics) + i
	}
	g.links = append(g.links, s)
	g.series = append(g.series, pointTimes{})
	g.vals = append(g.vals, pointVals{})
	return len(g.series) - 1
}

// checkLinkPoints leaves out error counts that are no count (negative, not
// finite): the per-link series' own check, as checkPoints' for the others.
func (set *promSet) checkLinkPoints(s linkSlot, pts *promPoints) {
	if s.part == partDown {
		return
	}
	k := timeline.NVLinks[s.link]
	name := map[uint8]string{partCRC: k.CRC, partReplay: k.Replay, partRecovery: k.Recovery}[s.part]
	dropOutside(pts, func(v float64) float64 { return set.outside.Check(name, v) })
}

// gpuHealth is what one sample's points of a GPU say of its health, before
// they are written as the probe's metrics.
type gpuHealth struct {
	lost             bool
	links, linksDown float64 // NaN: no point
	down, errLinks   uint64
	errs             [dcgmLinks][3]float64
	erred            uint64 // links with a count in this sample
}

func (h *gpuHealth) reset() {
	*h = gpuHealth{links: math.NaN(), linksDown: math.NaN()}
}

// take notes point v of the GPU's series m (a special one: promMetrics'
// metric "", or a per-link one) and says whether it was one.
func (h *gpuHealth) take(g *promGPU, m int, v float64) bool {
	switch m {
	case promLost:
		h.lost = h.lost || v >= 1
		return true
	case promLinks:
		h.links = v
		return true
	case promLinksDown:
		h.linksDown = v
		return true
	}
	if m < len(promMetrics) {
		return false
	}
	s := g.links[m-len(promMetrics)]
	bit := uint64(1) << s.link
	if s.part == partDown {
		if v >= 1 {
			h.down |= bit
		}
		return true
	}
	if h.erred&bit == 0 {
		h.errs[s.link], h.erred = [3]float64{}, h.erred|bit
	}
	h.errs[s.link][s.part-partCRC] = v
	if v > 0 {
		h.errLinks |= bit
	}
	return true
}

// write appends what h says to s and ms as the live probe writes it, for
// the GPU of device dev: its probe status lost, and its NVLink masks and
// counts.
func (h *gpuHealth) write(s *timeline.Sample, ms []timeline.Metric, g *promGPU, dev string) []timeline.Metric {
	if h.lost {
		s.Probes = append(s.Probes, timeline.ProbeStatus{Probe: "nvml", Device: dev, State: timeline.ProbeLost,
			Err: "lost (" + promLostSeries + ")"})
	}
	gauge := func(name string, v float64) {
		ms = append(ms, timeline.Metric{Key: timeline.Key{Name: name, Device: dev}, Kind: timeline.Gauge, Value: v})
	}
	// The links: 0…n-1 as counted, and any a per-link series names (a
	// dcgm-exporter without gputop's count has only those).
	links := g.namedLinks
	if n := h.links; !math.IsNaN(n) && n >= 1 && n <= timeline.NVLinkMaxLinks {
		links |= uint64(1)<<uint(n) - 1
	}
	if links == 0 {
		return ms
	}
	gauge(timeline.GPUNVLinkLinks, float64(links))
	if !math.IsNaN(h.linksDown) {
		// Known: gputop sends a series per link down, none while all are up.
		gauge(timeline.GPUNVLinkDown, float64(h.down&links))
		// gputop sends a link's counts from its first error on: a link
		// without them this sample counted none.
		gauge(timeline.GPUNVLinkErrLinks, float64(h.errLinks&links))
	}
	for m := h.erred; m != 0; m &= m - 1 {
		l := bits.TrailingZeros64(m)
		k := timeline.NVLinks[l]
		gauge(k.CRC, h.errs[l][0])
		gauge(k.Replay, h.errs[l][1])
		gauge(k.Recovery, h.errs[l][2])
	}
	return ms
}

// xidFound is an Xid of a GPU of the session: its time (Unix ms), GPU
// number and code.
type xidFound struct {
	at        int64
	gpu, code int
}

// xidDedupe is how long after an Xid marker a change of the Xid gauge to
// the same code is the same Xid: the gauge moves at the GPU's next
// reading, which Prometheus scrapes up to a scrape interval later and a
// query's step rounds up; 5 minutes is Prometheus' own lookback.
const xidDedupe = 5 * time.Minute

// xidMarkers turns the Xids found into markers, as the live probe makes
// them: from gputop's markers (at their own time), and from each change of
// a GPU's last Xid to another code not a marker's within xidDedupe before.
// An Xid the gauge already held at its first point came before the range:
// a note says so.
//
// gputop reports whether a host's series are gputop serve's (its
// gputop_info): of another exporter's (dcgm-exporter's) a note says what
// its Xids cannot tell.
func (res *Result) xidMarkers(fromMarkers []xidFound, gputop func(host string) bool) (markers []timeline.Marker, notes []string) {
	found := fromMarkers
	var before, gaugeOnly []string
	for _, g := range res.gpus {
		xs := &g.series[promXid]
		var c timeCursor
		last := math.NaN()
		for {
			t, ok := xs.at(&c)
			if !ok {
				break
			}
			v := g.vals[promXid].at(&c)
			xs.step(&c)
			code := int(v)
			switch {
			case math.IsNaN(last) && code > 0:
				before = append(before, fmt.Sprintf("%s Xid %d", units.GPUs([]int{g.id.index}), code))
			case !math.IsNaN(last) && code > 0 && v != last && t >= res.First.UnixMilli() && t < res.end:
				dup := slices.ContainsFunc(fromMarkers, func(x xidFound) bool {
					return x.gpu == g.id.index && x.code == code && x.at <= t && t-x.at <= xidDedupe.Milliseconds()
				})
				if !dup {
					found = append(found, xidFound{at: t, gpu: g.id.index, code: code})
					if !gputop(g.id.host) {
						gaugeOnly = append(gaugeOnly, units.GPUs([]int{g.id.index}))
					}
				}
			}
			last = v
		}
	}
	for _, x := range found {
		markers = append(markers, timeline.Marker{At: time.UnixMilli(x.at).UTC(), Text: xid.MarkerText(x.gpu, x.code), Origin: timeline.XidOrigin})
	}
	if len(gaugeOnly) > 0 {
		slices.Sort(gaugeOnly)
		notes = append(notes, fmt.Sprintf("the Xids of %s are read from DCGM_FI_DEV_XID_ERRORS, the last Xid: "+
			"a repeat of the same code is not seen, and whether the GPU was lost after is not in the exporter's series",
			strings.Join(slices.Compact(gaugeOnly), ", ")))
	}
	if len(before) > 0 {
		notes = append(notes, fmt.Sprintf("%s before the range (DCGM_FI_DEV_XID_ERRORS held it at the first point): not an event of it",
			strings.Join(before, ", ")))
	}
	return markers, notes
}

// xidOfMarker reads a marker of gputop serve's as an Xid of a GPU of the
// session: its text names the GPU by its number on its host. The GPUs are
// found by a map, made at the first: a walk over 16,384 of them for each
// of 100,000 markers was minutes.
func (res *Result) xidOfMarker(host, text string) (gpu, code int, ok bool) {
	g, code, ok := xid.ParseMarker(text)
	if !ok {
		return 0, 0, false
	}
	if res.wholeGPU == nil {
		res.wholeGPU = map[promGPUID]int{}
		for _, pg := range slices.Backward(res.gpus) { // of two of one host and number, the first wins
			if pg.id.gi == "" {
				res.wholeGPU[promGPUID{host: pg.id.host, index: pg.hostIndex}] = pg.id.index
			}
		}
	}
	idx, ok := res.wholeGPU[promGPUID{host: host, index: g}]
	return idx, code, ok
}

// hostOfMarker names a marker's host: its Hostname label, or else the host
// whose GPU series came from the same scraped instance (gputop serve's
// marker series has no Hostname of its own), or else the instance's.
func (set *promSet) hostOfMarker(m promMarker) string {
	if m.host != "" {
		return m.host
	}
	if h, ok := set.instHost[m.inst]; ok {
		return h
	}
	return hostOf(map[string]string{"instance": m.inst})
}
