package report

import (
	"math"

	"github.com/gputop-dev/gputop/timeline"
)

// LinkHealth is one NVLink link of a GPU (timeline/metrics_nvlink.go): in
// the report over the span, in a snapshot at its instant.
type LinkHealth struct {
	Link int `json:"link"` // NVML's link id
	// Down says the link was down at the end (the snapshot's instant);
	// DownSeconds, in the report, how long it was down in the span.
	Down        bool   `json:"down"`
	DownSeconds Number `json:"down_seconds,omitempty"`
	// Error counts since the driver loaded, the last seen: 0 for a link
	// that counted none, null where unknown.
	CRCErrors  Number `json:"crc_errors"`
	Replays    Number `json:"replays"`
	Recoveries Number `json:"recoveries"`
	// Data is the data rate both ways (the report's is the mean).
	Data Number `json:"data_bytes_per_s"`
}

// linkHealth builds a GPU's links from the links, down and erring masks
// and a reader of per-link values (last seen, or the mean for data).
func linkHealth(links, down, errLinks float64, v func(name string, mean bool) Number) []LinkHealth {
	var out []LinkHealth // nil without links
	for _, l := range timeline.LinkIDs(links) {
		k := &timeline.NVLinks[l]
		lh := LinkHealth{Link: l, CRCErrors: v(k.CRC, false), Replays: v(k.Replay, false), Recoveries: v(k.Recovery, false),
			Data: v(k.Data, true), Down: !math.IsNaN(down) && uint64(down)&(1<<l) != 0}
		// A link whose counts were never recorded counted none, where the
		// mask of erring links says so.
		if !math.IsNaN(errLinks) && uint64(errLinks)&(1<<l) == 0 {
			for _, n := range []*Number{&lh.CRCErrors, &lh.Replays, &lh.Recoveries} {
				if (*n).Unknown() {
					*n = 0
				}
			}
		}
		out = append(out, lh)
	}
	return out
}

// nvlinks is a GPU's links over the report's span.
func (b *repBuilder) nvlinks(dev string) []LinkHealth {
	last := func(name string) float64 {
		return b.s.LastAt(timeline.Key{Name: name, Device: dev}, b.from, b.to)
	}
	links := last(timeline.GPUNVLinkLinks)
	if math.IsNaN(links) {
		return nil
	}
	errLinks := last(timeline.GPUNVLinkErrLinks)
	// How long each link was down: the time its down samples stand for.
	var downFor [timeline.NVLinkMaxLinks]float64
	downNow := math.NaN()
	r := b.load(0, timeline.GPUNVLinkDown, dev)
	for i, v := range r.v {
		if math.IsNaN(v) {
			continue
		}
		downNow = v
		if v == 0 { // no link down: most samples
			continue
		}
		for _, l := range timeline.LinkIDs(v) {
			downFor[l] += float64(r.w[i]) / 1e9
		}
	}
	out := linkHealth(links, downNow, errLinks, func(name string, mean bool) Number {
		if mean {
			m, _ := b.whole(name, dev)
			return Number(m)
		}
		return Number(last(name))
	})
	for i := range out {
		if !math.IsNaN(downNow) {
			out[i].DownSeconds = Number(downFor[out[i].Link])
		}
	}
	return out
}
