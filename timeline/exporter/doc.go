// Package exporter is the Prometheus exporter of gputop serve, and of the
// live view and gputop record given --listen: what gputop samples, under
// dcgm-exporter's names, units and labels where the quantity is the same
// (so existing dashboards and alerts work unchanged), and what only gputop
// knows (hints, the phase, the last marker, the sub-second utilisation
// range) under gputop_ names. docs/metrics.md lists every series.
//
// The sampling pipeline hands each sample to an Exporter (Observe), which
// takes its values and hints from the process's
// analysis.Judge (the one the screen and the recording ask) and keeps what
// the sample says through an atomic pointer. The first scrape of a sample
// builds its metrics, once, into an immutable snapshot the next scrapes
// reuse: a scrape never waits on sampling, sampling never waits on a
// scrape, and a sample nobody scrapes costs no metrics.
//
// Like the rest of timeline it reads no clock: every time it exports is a
// sample's. It imports timeline, timeline/analysis and client_golang, and
// neither probes nor recordings, so it cannot tell live from demo from
// replay; package main wires it to a session and an HTTP server.
package exporter
