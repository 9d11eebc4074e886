package prom

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/recordings/importer"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// Firing alerts read back, so that a postmortem shows when the page went
// out. Prometheus keeps the state of every alert of its rules as the series
// ALERTS{alertname, alertstate, <the alert's labels>}, 1 at each evaluation
// while the alert is pending or firing. An import asks for the firing ones
// over its range at its step; a run of points of one series (a gap of more
// than alertGapSteps steps ends it) is one firing, and its first point a
// marker, "alert GPUXidFatal firing: Hostname=node3 gpu=2 severity=critical".

// alertsSeries is Prometheus' series of its alerts' states.
const alertsSeries = "ALERTS"

// alertsQuery is what an import asks for: the alerts that fired, of every
// host (an alert's labels are its rule's, not the job's: --match's
// job="dcgm" would leave out an alert whose rule aggregated job away). The
// hosts are picked after (promSet.alertMarkers).
const alertsQuery = alertsSeries + `{alertstate="firing"}`

// Bounds of the alerts read.
const (
	// maxAlertMarkers bounds the alert markers of one import: a day of a
	// cluster whose every GPU flaps is not a list anyone reads, and a
	// recording's markers are kept in memory by replay.
	maxAlertMarkers = 1000
	// maxAlertSeries bounds the series of ALERTS kept, across the
	// stretches of the range: each is one marker or more, so more than
	// this are past maxAlertMarkers anyway.
	maxAlertSeries = 10 * maxAlertMarkers
	// alertGapSteps: a firing alert has a point at every step (Prometheus
	// evaluates its rules more often than an import's step); one missed
	// evaluation or scrape is not a new firing, a gap of more steps is.
	alertGapSteps = 2
)

// promAlert is one series of ALERTS: one alert of one rule with its labels.
type promAlert struct {
	host  string // its Hostname label, cleaned; "" for an alert of none
	text  string // the marker's text
	times pointTimes
}

// alertFirst are the labels an alert's text gives first, in this order:
// which GPU, and how bad; the rest follow in name order, and the 200 bytes
// of a marker may cut them.
var alertFirst = []string{"Hostname", "gpu", "GPU_I_ID", "severity"}

// alertLeftOut are the labels an alert's text leaves out: Prometheus' own,
// and the GPU's description that dcgm-exporter puts on each of its series,
// which the recording's list of GPUs has (and which would take most of the
// 200 bytes).
var alertLeftOut = map[string]bool{"__name__": true, "alertname": true, "alertstate": true,
	"UUID": true, "device": true, "modelName": true, "pci_bus_id": true, "GPU_I_PROFILE": true, "DCGM_FI_DRIVER_VERSION": true}

// alertText is an alert's marker text: its name first, then its labels
// (alertFirst's, then the others in name order, without alertLeftOut's),
// made safe (escape sequences and control characters out) and at most 200
// bytes (importer.CleanLabel).
func alertText(labels map[string]string) string {
	var b strings.Builder
	b.WriteString("alert ")
	b.WriteString(cmp.Or(labels["alertname"], "(no name)"))
	b.WriteString(" firing")
	sep := ": "
	rest := slices.Sorted(maps.Keys(labels))
	rest = slices.DeleteFunc(rest, func(k string) bool { return alertLeftOut[k] || slices.Contains(alertFirst, k) })
	for _, k := range slices.Concat(alertFirst, rest) {
		if _, ok := labels[k]; !ok {
			continue
		}
		b.WriteString(sep)
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(labels[k])
		sep = " "
	}
	// Control characters become spaces: runs of them one.
	return importer.CleanLabel(strings.Join(strings.Fields(timeline.CleanText(b.String())), " "))
}

// addAlert takes a series of ALERTS: its times (the values are 1) now
// belong to the set. An alert pending, in a saved answer of ALERTS whole,
// is not one that fired.
func (set *promSet) addAlert(labels map[string]string, pts *promPoints) {
	if labels["alertstate"] != "firing" || pts.times.n == 0 {
		return
	}
	text := alertText(labels)
	a := set.alerts[text]
	if a == nil {
		if len(set.alerts) >= maxAlertSeries {
			set.alertSeriesLeft++
			return
		}
		a = &promAlert{host: importer.CleanLabel(labels["Hostname"]), text: text}
		set.alerts[text] = a
	}
	a.times.appendTimes(&pts.times)
}

// alertFiring is the start of one firing of an alert.
type alertFiring struct {
	at    int64 // Unix ms
	alert *promAlert
}

// alertMarkers makes a marker of each firing of the alerts gathered whose
// host is one of the import's, as labels name it (hostSeen), or that name
// none (an alert of the cluster, or of a rule that aggregated Hostname
// away): at most maxAlertMarkers, the earliest, within [first, last] (Unix
// ms), where a sample can carry it. step is the time between points, 0 if
// unknown (then each series is one firing). notes say what was left out.
func (set *promSet) alertMarkers(first, last int64, step time.Duration) (markers []timeline.Marker, notes []string) {
	if set.alertsFailed != nil {
		// Its own words say which query and why; the GPU data is whole.
		notes = append(notes, fmt.Sprintf("alerts not read, so none is a marker: %v", set.alertsFailed))
	}
	gap := alertGapSteps * step.Milliseconds()
	var firings []alertFiring
	outside := 0
	for _, a := range set.alerts {
		if a.host != "" && !set.hostSeen[a.host] {
			continue // another host's: not the import's
		}
		if !a.times.increasing() {
			// Answers out of order in a saved file.
			a.times, _, _ = sortedTimes(a.times.all(), make([]float64, a.times.n))
		}
		times := a.times.all()
		for i, t := range times {
			if i == 0 || (step > 0 && t-times[i-1] > gap) {
				if t < first || t > last {
					outside++
				} else {
					firings = append(firings, alertFiring{t, a})
				}
			}
		}
	}
	slices.SortFunc(firings, func(x, y alertFiring) int {
		return cmp.Or(cmp.Compare(x.at, y.at), cmp.Compare(x.alert.text, y.alert.text))
	})
	if len(firings) > maxAlertMarkers {
		notes = append(notes, fmt.Sprintf("%s in the range: the first %d are markers, the other %d left out",
			units.Count(len(firings), "alert firing"), maxAlertMarkers, len(firings)-maxAlertMarkers))
		firings = firings[:maxAlertMarkers]
	}
	for _, f := range firings {
		markers = append(markers, timeline.Marker{At: time.UnixMilli(f.at).UTC(), Text: f.alert.text, Origin: timeline.AlertOrigin})
	}
	if outside > 0 {
		notes = append(notes, fmt.Sprintf("%s before the first sample or after the last left out (no sample to carry a marker)",
			units.Count(outside, "alert firing")))
	}
	if set.alertSeriesLeft > 0 {
		notes = append(notes, fmt.Sprintf("%s of ALERTS past the first %d left out", units.Count(set.alertSeriesLeft, "series", "series"), maxAlertSeries))
	}
	return markers, notes
}
