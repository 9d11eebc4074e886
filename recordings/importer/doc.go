// Package importer turns GPU monitoring logs people already have into
// gputop samples, for `gputop import LOG -o FILE`. It imports only timeline
// and the standard library; writing the samples into a recording is the
// recordings package's job.
//
//	LOG ──decodeText──Detect──▶ parseNvidiaSMI │ parseDmon │ parseDCGM ──▶ table of rows
//	    (UTF-16 to UTF-8; one row per GPU per sampling pass, in log order,
//	     each value checked against its metric's range as it is put)
//	table ──group (bursts.go)──▶ instants ──result (assemble.go)──▶ Log
//	Log.Each ──▶ one timeline.Sample per instant, strictly increasing in
//	    time, made as the writer takes it (Import makes them all, for tests)
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
// Tolerated: UTF-16 (encoding.go) and a UTF-8 BOM, CRLF line ends, blank
// lines, headers repeated mid-file, a truncated last line, a few unreadable
// lines (skipped, counted in a note), header names of hand-made loggers
// (columns.go). Refused: a log most of whose data lines cannot be read; the
// error quotes the first bad line's number and why. OpenFile refuses what
// is not a regular file (a named pipe would block the open).
//
// Every boundary validates (validate.go): a value outside its metric's
// physical range (timeline.RangeOf) is a gap, counted in one note per
// metric; samples more than timeline.MaxSampleGap after the one before are
// left out; names and notes are outside text, made safe with
// timeline.CleanText. A Prometheus answer is read under a size limit and
// timeouts (promlimits.go, promfetch.go). Frozen readings (every field
// repeated to the last digit for minutes) are named in a note (frozen.go).
//
// Memory: a table row is 32 bytes and a value 8 (table.go); a million-line
// log of 8 GPUs and 13 columns imports in 264-355 MB peak RSS (docs/import.md).
package importer
