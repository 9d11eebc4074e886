package exporter

import (
	"slices"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gputop-dev/gputop/timeline"
)

// The hints that hold, three series each per GPU they name (gpu="" for the
// host's), so that an alert can say what, since when and why:
//
//	gputop_hint_active{id,severity,gpu} 1
//	gputop_hint_first_seen_timestamp_seconds{id,gpu} <the episode's start, Unix time>
//	gputop_hint_info{id,gpu,evidence} 1
//
// A label set is a series to Prometheus, and every new one is a new series
// in its head block and index: a label that changes with each sample is
// churn. A hint's evidence is numbers over its stretch ("42-43s every 2m,
// 38% of the time (3 stalls over 4m28s)"), which move as the stretch grows,
// so the evidence as it reads now would be a new series every second. The
// evidence label is therefore frozen per episode: the evidence of the first
// firm reading (until then, of the first provisional one), kept until the
// episode ends, so one episode makes at most two gputop_hint_info series.
// The time goes in a value, never a label: first_seen's labels stay the
// same for as long as the hint holds. Severity is left off both: it may
// rise within an episode, and gputop_hint_active carries it.

const (
	hintActiveName    = "gputop_hint_active"
	hintFirstSeenName = "gputop_hint_first_seen_timestamp_seconds"
	hintInfoName      = "gputop_hint_info"
)

var (
	hintDesc    = prometheus.NewDesc(hintActiveName, hintHelp, []string{"id", "severity", "gpu"}, nil)
	hintMIGDesc = prometheus.NewDesc(hintActiveName, hintHelp, []string{"id", "severity", "gpu", "GPU_I_PROFILE", "GPU_I_ID"}, nil)

	firstSeenDesc    = prometheus.NewDesc(hintFirstSeenName, firstSeenHelp, []string{"id", "gpu"}, nil)
	firstSeenMIGDesc = prometheus.NewDesc(hintFirstSeenName, firstSeenHelp, []string{"id", "gpu", "GPU_I_PROFILE", "GPU_I_ID"}, nil)

	hintInfoDesc    = prometheus.NewDesc(hintInfoName, hintInfoHelp, []string{"id", "gpu", "evidence"}, nil)
	hintInfoMIGDesc = prometheus.NewDesc(hintInfoName, hintInfoHelp, []string{"id", "gpu", "GPU_I_PROFILE", "GPU_I_ID", "evidence"}, nil)
)

const (
	hintHelp      = "A bottleneck hint that holds now (1), as gputop's screen shows it; gpu is empty for the host's."
	firstSeenHelp = "When the episode of a hint that holds now began on this GPU (Unix time)."
	hintInfoHelp  = "A hint that holds now (1), with its evidence as it read when first firm in this episode."
)

// hintSeries is one hint on one GPU (or the host), ready to export.
type hintSeries struct {
	id, severity string
	// gpu is the gpu label; a MIG instance's also has profile and gi.
	gpu, profile, gi string
	mig              bool
	since            time.Time
	evidence         string
}

// hintKey names a hint on one GPU: what an episode's evidence is kept by.
type hintKey struct{ id, gpu, gi string }

// frozenEvidence is an episode's evidence as exported: the first firm
// reading, or the first provisional one until there is a firm one.
type frozenEvidence struct {
	since       time.Time
	evidence    string
	provisional bool
}

// hintEpisodes keeps the frozen evidence of the episodes that hold, from
// one sample to the next; touched by Observe only.
type hintEpisodes struct {
	kept map[hintKey]frozenEvidence
}

// series returns the hints that hold, one per id and GPU, and forgets the
// episodes that no longer do, so what it keeps is bounded by the rules
// times the GPUs.
func (e *hintEpisodes) series(hints []timeline.Hint, labels gpuLabelSet) []hintSeries {
	next := make(map[hintKey]frozenEvidence, len(e.kept))
	var out []hintSeries
	one := func(h *timeline.Hint, s hintSeries, g int) {
		k := hintKey{s.id, s.gpu, s.gi}
		if _, dup := next[k]; dup {
			return
		}
		ep := currentEpisode(h, g)
		s.since = ep.Start
		f, ok := e.kept[k]
		if !ok || !f.since.Equal(ep.Start) || (f.provisional && !ep.Provisional) {
			f = frozenEvidence{since: ep.Start, evidence: ep.Evidence, provisional: ep.Provisional}
		}
		next[k] = f
		s.evidence = f.evidence
		out = append(out, s)
	}
	for i := range hints {
		h := &hints[i]
		if !h.Ongoing {
			continue // ended: the screen dims it; it no longer holds
		}
		if len(h.GPUs) == 0 {
			one(h, hintSeries{id: h.ID, severity: h.Severity.String()}, -1)
		}
		for _, g := range h.GPUs {
			s := hintSeries{id: h.ID, severity: h.Severity.String(), gpu: strconv.Itoa(g)}
			// A MIG instance's hint joins its series: its parent's gpu
			// and its own GPU_I_ID.
			if l := labels.of(g); l.mig {
				if l.skip {
					continue
				}
				s.mig, s.gpu, s.profile, s.gi = true, l.values[0], l.values[5], l.values[6]
			}
			one(h, s, g)
		}
	}
	e.kept = next
	return out
}

// currentEpisode is the latest episode of h that names GPU g (any, for
// g < 0): the one that holds now. A hint without episodes is its own.
func currentEpisode(h *timeline.Hint, g int) timeline.Episode {
	best := timeline.Episode{Start: h.Start, End: h.End, Evidence: h.Evidence, Provisional: h.Provisional}
	found := false
	for _, ep := range h.Episodes {
		names := g < 0 || slices.Contains(ep.GPUs, g)
		if names && (!found || ep.Start.After(best.Start)) {
			best, found = ep, true
		}
	}
	return best
}

// addHints adds the three series of each hint that holds.
func addHints(hints []hintSeries, add func(*prometheus.Desc, prometheus.ValueType, float64, ...string)) {
	for _, s := range hints {
		since := unixSeconds(s.since)
		if s.mig {
			add(hintMIGDesc, prometheus.GaugeValue, 1, s.id, s.severity, s.gpu, s.profile, s.gi)
			add(firstSeenMIGDesc, prometheus.GaugeValue, since, s.id, s.gpu, s.profile, s.gi)
			add(hintInfoMIGDesc, prometheus.GaugeValue, 1, s.id, s.gpu, s.profile, s.gi, s.evidence)
			continue
		}
		add(hintDesc, prometheus.GaugeValue, 1, s.id, s.severity, s.gpu)
		add(firstSeenDesc, prometheus.GaugeValue, since, s.id, s.gpu)
		add(hintInfoDesc, prometheus.GaugeValue, 1, s.id, s.gpu, s.evidence)
	}
}
