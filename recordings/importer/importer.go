package importer

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// Format names a kind of log this package reads.
type Format string

// The formats Import reads. Their names are the values of `gputop import
// --format`.
const (
	// NvidiaSMICSV is `nvidia-smi --query-gpu=... --format=csv [-l N | -lms N]`,
	// and CSV files shaped like it (custom headers, units or none).
	NvidiaSMICSV Format = "nvidia-smi-csv"
	// Dmon is the text of `nvidia-smi dmon`, any `-s` groups, with or
	// without `-o DT`, and its `--format csv` variant.
	Dmon Format = "dmon"
	// DcgmiCSV is DCGM data: CSV with an entity column and DCGM field short
	// names (`EntityId,GRACT,FBUSD,TimeStamp`), or the text of `dcgmi dmon`.
	DcgmiCSV Format = "dcgmi-csv"
	// Auto asks Import to tell the format from the log's content.
	Auto Format = "auto"
)

// Formats lists the formats Import reads, in the order they are tried when
// detecting.
var Formats = []Format{NvidiaSMICSV, Dmon, DcgmiCSV}

// Options says how to read one log.
type Options struct {
	// Format is the log's format; "" or Auto detects it from the content
	// (never from the file name).
	Format Format
	// Start is the time of the first sample, for logs without timestamps
	// (dmon and dcgmi dmon by default; dmon -o T has times but no date).
	// Zero means the caller did not say.
	Start time.Time
	// ModTime is the log file's modification time. When Start is zero, a
	// log without timestamps is assumed to END there (a monitor writes
	// until it is stopped), so its start is ModTime minus its length, and a
	// note says the times are estimated.
	ModTime time.Time
	// Interval is the sampling interval of a log without timestamps (dmon's
	// and dcgmi dmon's -d). Zero means one second, both tools' default.
	Interval time.Duration
	// Columns names the columns of a CSV written with `--format=csv,noheader`:
	// the list given to --query-gpu, for example "timestamp,index,power.draw".
	// A header in the log wins over it.
	Columns string
	// Origin is the log's file name, for SourceInfo.Origin.
	Origin string
}

// Result is an imported log: what to write into a recording.
type Result struct {
	// Info describes the source: Kind timeline.Imported, Origin
	// "<file> (<format>)", the GPUs found, the median sampling interval and
	// notes on everything that was assumed or left out.
	Info timeline.SourceInfo
	// Samples are in strictly increasing time, one per sampling instant,
	// each holding every GPU's metrics read at that instant.
	Samples []timeline.Sample
	// Format is the format the log was read as.
	Format Format
}

// maxLineBytes bounds one line; no log this package reads has lines near it.
const maxLineBytes = 1 << 20

// detectBytes is how much of the log format detection looks at.
const detectBytes = 64 << 10

// maxInterval bounds Options.Interval: a log sampled less often than this is
// not a monitor's output.
const maxInterval = 24 * time.Hour

// Import reads one log and returns its samples. Errors are one line, with
// the log's line number where there is one.
func Import(r io.Reader, opts Options) (*Result, error) {
	if opts.Interval < 0 || opts.Interval > maxInterval {
		return nil, fmt.Errorf("interval %v: must be between 0 and %v", opts.Interval, maxInterval)
	}
	lines := newLineReader(r)
	format := opts.Format
	if format == "" || format == Auto {
		head, err := lines.peek(detectBytes)
		if err != nil {
			return nil, err
		}
		if format, err = Detect([]byte(head), opts.Columns != ""); err != nil {
			return nil, err
		}
	}
	var t *table
	var err error
	switch format {
	case NvidiaSMICSV:
		t, err = parseNvidiaSMI(lines, opts.Columns)
	case Dmon:
		t, err = parseDmon(lines)
	case DcgmiCSV:
		t, err = parseDCGM(lines)
	default:
		return nil, fmt.Errorf("unknown format %q: expected %s", format, formatList())
	}
	if err != nil {
		return nil, err
	}
	return t.result(format, opts)
}

// formatList names the accepted --format values for error messages.
func formatList() string {
	names := []string{string(Auto)}
	for _, f := range Formats {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}
