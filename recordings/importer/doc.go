// Package importer turns GPU monitoring logs people already have into
// gputop samples, for `gputop import LOG -o FILE`. It imports only timeline
// and the standard library; writing the samples into a recording is the
// recordings package's job.
//
//	LOG ──Detect──▶ parseNvidiaSMI │ parseDmon │ parseDCGM ──▶ table of rows
//	    (one row per GPU per sampling pass, in log order)
//	table ──group (bursts.go)──▶ instants ──result (assemble.go)──▶ Result
//	    (one timeline.Sample per instant, strictly increasing in time)
//
// Formats (one file each): nvidia-smi --query-gpu CSV (nvidiasmi.go, column
// names and aliases in columns.go), nvidia-smi dmon (dmon.go), and DCGM CSV
// or dcgmi dmon text (dcgmi.go). Values are converted to gputop's units
// (timeline/metrics.go): MiB to bytes, DCGM ratios to %, NVML clock-event
// reasons to timeline.Throttle bits (throttle.go). A value the log marks as
// missing ([N/A], [Not Supported], N/A, -) is NaN, never 0.
//
// Time. Timestamps without a zone (nvidia-smi's, dmon's -o DT) are read as
// UTC, and a note says so. A log without timestamps (dmon, dcgmi dmon) is
// placed by Options.Start, or else taken to END at Options.ModTime (a
// monitor writes until it is stopped), one sample per Options.Interval, and
// a note says the times are estimated.
//
// Prometheus (prometheus.go, promfetch.go, promjson.go, promtimes.go) is
// apart: FetchPrometheus asks Prometheus' /api/v1/query_range for every GPU
// series of dcgm-exporter's (and gputop serve's) names, a series name and a
// stretch of time per query, each under Prometheus' 11,000 points per
// series; ReadPrometheus reads saved answers. Series are grouped by host
// (the Hostname label, or the scraped instance) and gpu label into one
// multi-host session, hosts by name, GPUs numbered across it. A day of 64
// GPUs is 7 million points: they are kept as values and runs of evenly
// spaced times (promtimes.go), and PromResult.Each makes the samples one at
// a time as they are written, never all at once. A point a series lacks
// is absent from its sample, a gap, never a zero.
//
// Tolerated: a UTF-8 BOM, CRLF line ends, blank lines, headers repeated
// mid-file, a truncated last line, a few unreadable lines (skipped, counted
// in a note). Refused: a log most of whose data lines cannot be read; the
// error quotes the first bad line's number and why.
package importer
