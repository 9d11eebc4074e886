// Package prom imports a cluster's GPU history from Prometheus, for
// `gputop import prometheus URL|FILE.json -o FILE`
// (docs/prometheus-import.md): Fetch asks Prometheus' /api/v1/query_range
// for every GPU series of dcgm-exporter's (and gputop serve's) names, a
// series name and a stretch of time per query, each under Prometheus'
// 11,000 points per series; Read reads saved answers. Series are grouped by
// host (the Hostname label, or the scraped instance) and gpu label into
// one multi-host session, hosts by name, GPUs numbered across it. A day of
// 64 GPUs is 7 million points: they are kept as values and runs of evenly
// spaced times (promtimes.go), and Result.Each makes the samples one at a
// time as they are written, never all at once. A point a series lacks is
// absent from its sample, a gap, never a zero.
//
// Every boundary validates: an answer is read under a size limit and
// timeouts (promlimits.go, promfetch.go), a point outside its metric's
// physical range is a gap counted in a note (promvalidate.go, with the
// importer's RangeTally), labels are outside text made safe.
//
// Fetch also asks for the alerts that fired (ALERTS), and each firing of
// one becomes a marker (promalerts.go); that query failing is a note, not
// a failed import.
//
// It builds on recordings/importer (the helpers every log format shares)
// and imports nothing else of ours but timeline and units: main calls it,
// and recordings writes what it makes. Files: prometheus.go (the series,
// the session, Read), promfetch.go (Fetch), promalerts.go (ALERTS into
// markers), promjson.go (the answers' JSON), promtimes.go, promlimits.go,
// promvalidate.go.
package prom
