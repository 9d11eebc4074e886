// Package importer turns GPU monitoring logs people already have into
// gputop samples, for `gputop import LOG -o FILE`. It imports only timeline
// and the standard library; writing the samples into a recording is the
// recordings package's job.
//
//	LOG ──DecodeText──Detect──▶ parseNvidiaSMI │ parseDmon │ parseDCGM ──▶ table of rows
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
// Prometheus is apart, in recordings/importer/prom, which builds on the
// helpers here (DecodeText, CleanLabel, RangeTally, ThrottleFromNVML, ...)
// and is never imported by this package.
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
// timeline.CleanText (a Prometheus answer's bounds are prom's). Frozen
// readings (every field repeated to the last digit for minutes) are named
// in a note (frozen.go).
//
// Memory: a table row is 32 bytes and a value 8 (table.go); a million-line
// log of 8 GPUs and 13 columns imports in 264-355 MB peak RSS (docs/import.md).
package importer
