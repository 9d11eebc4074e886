package exporter

import (
	"maps"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// SeriesNames returns the name of every series the Exporter can send (not
// the process and Go collectors' of Handler), sorted: the names alerting
// rules and dashboards may ask for (examples/, whose tests check them). It
// reads the descriptions the snapshots are built from, so it cannot drift
// from what is exported.
func SeriesNames() []string {
	descs := []*prometheus.Desc{infoDesc, lastSampleDesc, sampleLagDesc, overrunsDesc, phaseDesc, markerDesc,
		hintDesc, firstSeenDesc, hintInfoDesc, nvlinkLinksDesc, nvlinkDownDesc, nvlinkLinkDown, lostDesc}
	for _, m := range []map[string]gpuSeries{gpuGauges, gpuCounters} {
		for _, s := range m {
			descs = append(descs, s.desc)
		}
	}
	descs = slices.AppendSeq(descs, maps.Values(nvlinkDCGMErrors))
	names := make([]string, 0, len(descs))
	for _, d := range descs {
		// A description's name read out of its String (`Desc{fqName:
		// "gputop_info", help: ...`): client_golang has no getter.
		_, rest, _ := strings.Cut(d.String(), `fqName: "`)
		name, _, _ := strings.Cut(rest, `"`)
		names = append(names, name)
	}
	slices.Sort(names)
	return slices.Compact(names)
}
