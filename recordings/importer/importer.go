package importer

import (
	"fmt"
	"io"
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

// Result is an imported log with every sample made: Import's answer, for
// tests and small logs. A command imports through Read, whose Log makes
// the samples one at a time.
type Result struct {
	// Info describes the source, as Log.Info.
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

// Import reads one log and returns all its samples at once (see Read).
func Import(r io.Reader, opts Options) (*Result, error) {
	l, err := Read(r, opts)
	if err != nil {
		return nil, err
	}
	res := &Result{Info: l.Info, Samples: make([]timeline.Sample, 0, l.Samples), Format: l.Format}
	// Each reuses its sample's values: each is copied.
	l.Each(func(s *timeline.Sample) error {
		res.Samples = append(res.Samples, timeline.Sample{At: s.At, Columns: s.Columns, Values: append([]float64(nil), s.Values...)})
		return nil
	})
	return res, nil
}

// Read reads one log. Its samples are made as Log.Each is called, so an
// import's memory is the log's values (8 bytes each) and its rows, not
// its samples. Errors are one line, with the log's line number where
// there is one. A log saved as UTF-16 (by Windows tools) is read as such.
func Read(r io.Reader, opts Options) (*Log, error) {
	if opts.Interval < 0 || opts.Interval > maxInterval {
		return nil, fmt.Errorf("interval %v: must be between 0 and %v", opts.Interval, maxInterval)
	}
	text, encoding, err := DecodeText(r)
	if err != nil {
		return nil, err
	}
	lines := &lineReader{r: text}
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
	switch format {
	case NvidiaSMICSV:
		t, err = parseNvidiaSMI(lines, opts.Columns)
	case Dmon:
		t, err = parseDmon(lines)
	case DcgmiCSV:
		t, err = parseDCGM(lines)
	default:
		return nil, fmt.Errorf("unknown format %q: expected %s, %s", format, Auto, readFormats())
	}
	if err != nil {
		return nil, err
	}
	if encoding != "" {
		t.note("the log is %s text (a Windows tool's): read as such", encoding)
	}
	return t.result(format, opts)
}
