package export

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// rowSink writes the export's rows in one format.
type rowSink interface {
	row(r *exportRow) error
	// flush writes out what is buffered and reports any write error.
	flush() error
}

// appendCell appends a cell's text to dst, and says whether the value is
// known (an unknown value is an empty CSV cell and a JSON null) and whether
// the column applies to the row at all.
func appendCell(dst []byte, r *exportRow, col int) (out []byte, known, applies bool) {
	if columnDefs[col].kinds&r.kind == 0 {
		return dst, false, false
	}
	switch col {
	case colTime:
		return appendTime(dst, r.at), true, true
	case colElapsed:
		return appendElapsed(dst, r.elapsed), true, true
	case colDevice:
		return append(dst, r.deviceName()...), true, true
	case colHostname:
		return append(dst, r.hostname...), r.hostname != "", true
	case colMIGProfile:
		return append(dst, r.profile...), r.profile != "", true
	case colStatus:
		if !r.stated {
			return dst, false, true
		}
		return append(dst, r.state.String()...), true, true
	case colError:
		return append(dst, r.err...), r.err != "", true
	case colThrottleReasons:
		reasons := timeline.ThrottleList(r.num[colThrottle])
		if reasons == nil {
			return dst, false, true
		}
		return append(dst, strings.Join(reasons, "|")...), true, true
	case colNVLinkDown:
		ids := timeline.LinkIDs(r.num[colNVLinkDown])
		if ids == nil {
			return dst, false, true
		}
		for i, id := range ids {
			if i > 0 {
				dst = append(dst, '|')
			}
			dst = strconv.AppendInt(dst, int64(id), 10)
		}
		return dst, true, true
	case colMarker:
		return append(dst, r.marker.Text...), true, true
	case colMarkerOrigin:
		return append(dst, r.marker.Origin...), r.marker.Origin != "", true
	case colProgressUnit:
		return append(dst, r.unit...), r.unit != "", true
	case colOwnerPod, colOwnerNamespace, colOwnerContainer, colOwnerJob, colOwnerUser, colOwnerPartition:
		if len(r.owners) == 0 {
			return dst, false, false // JSONL: no keys on a GPU no one holds
		}
		return appendOwners(dst, r.owners, col)
	}
	out, known = appendNumber(dst, r.num[col])
	return out, known, true
}

// appendOwners appends one field of a GPU's owners: each owner's, joined
// by "|" in the order read (a time-sliced GPU has several), so the i-th of
// every owner column is the same owner's. Unknown where every one is empty.
func appendOwners(dst []byte, owners []timeline.Owner, col int) ([]byte, bool, bool) {
	known := false
	for i, o := range owners {
		if i > 0 {
			dst = append(dst, '|')
		}
		f := [...]string{o.Pod, o.Namespace, o.Container, o.Job, o.User, o.Partition}[col-colOwnerPod]
		known = known || f != ""
		dst = append(dst, f...)
	}
	return dst, known, true
}

// appendTime appends t in RFC 3339, UTC, always with milliseconds, so every
// row has the same width and pandas' to_datetime infers one format.
func appendTime(b []byte, t time.Time) []byte {
	return t.UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
}

// appendElapsed appends d in seconds, exact to the nanosecond, without
// trailing zeros: 1.5, 3600, 0.000001.
func appendElapsed(b []byte, d time.Duration) []byte {
	if d < 0 {
		b = append(b, '-')
		d = -d // math.MinInt64 stays negative, but no sample is 292 years early
	}
	b = strconv.AppendInt(b, int64(d/time.Second), 10)
	frac := int64(d % time.Second)
	if frac == 0 {
		return b
	}
	digits := strconv.AppendInt(nil, frac+int64(time.Second), 10)[1:] // 9 digits, zero-padded
	return append(append(b, '.'), bytes.TrimRight(digits, "0")...)
}

// significant is how many significant digits a value that is not a whole
// number keeps: more than any GPU or host reading carries, so no
// information is lost, and few enough that float noise from a division
// (399999999.99999994) is rounded away.
const significant = 6

// appendNumber appends v as a plain decimal (never an exponent, which some
// spreadsheets read as text): a whole number exactly, any other rounded to
// six significant digits, but never rounded into its integer part, and
// without trailing zeros. NaN and ±Inf are unknown.
//
// Examples: 85520809984 → "85520809984"; 583/6 → "97.1667"; 412.345 →
// "412.345"; 399999999.99999994 → "400000000"; 250123456.7 → "250123457";
// 0.000123456789 → "0.000123457".
func appendNumber(b []byte, v float64) ([]byte, bool) {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return b, false
	case v == 0: // and -0, which would print as "-0"
		return append(b, '0'), true
	case v == math.Trunc(v):
		return strconv.AppendFloat(b, v, 'f', 0, 64), true
	}
	exp := int(math.Floor(math.Log10(math.Abs(v))))
	decimals := max(significant-1-exp, 0)
	b = strconv.AppendFloat(b, v, 'f', decimals, 64)
	if decimals > 0 { // the number has a point: trim zeros after it
		b = bytes.TrimSuffix(bytes.TrimRight(b, "0"), []byte("."))
	}
	return b, true
}

// csvSink writes CSV with encoding/csv: a header row, then a row of every
// column per row, empty where unknown or not applicable.
type csvSink struct {
	w      *csv.Writer
	record []string
	buf    []byte // the row's text
}

// newCSVSink writes the header row: the columns up to the owners', and
// the owners' too where owners says (a CSV file has one header).
func newCSVSink(w io.Writer, owners bool) (*csvSink, error) {
	n := numColumns
	if !owners {
		n -= ownerColumns
	}
	s := &csvSink{w: csv.NewWriter(w), record: make([]string, n)}
	for i := range s.record {
		s.record[i] = columnDefs[i].name
	}
	return s, s.w.Write(s.record)
}

func (s *csvSink) row(r *exportRow) error {
	// Every cell's text goes into one buffer and one string, and the
	// record's cells are slices of it: one allocation a row, not forty.
	line := s.buf[:0]
	var ends [numColumns]int
	for col := range s.record {
		start := len(line)
		var known bool
		if line, known, _ = appendCell(line, r, col); !known {
			line = line[:start]
		}
		ends[col] = len(line)
	}
	s.buf = line
	all, start := string(line), 0
	for col, end := range ends[:len(s.record)] {
		s.record[col], start = all[start:end], end
	}
	return s.w.Write(s.record)
}

func (s *csvSink) flush() error {
	s.w.Flush()
	return s.w.Error()
}

// jsonlSink writes one JSON object per row: the columns that apply to the
// row's device, in column order, with null where a value is unknown.
type jsonlSink struct {
	w    *bufio.Writer
	keys [numColumns][]byte // `"name":` of each column
	line []byte
	buf  []byte
	// quoted and quoter turn text into a JSON string, without escaping
	// <, > and & as encoding/json does by default (marker texts stay
	// readable to grep).
	quoted bytes.Buffer
	quoter *json.Encoder
}

func newJSONLSink(w io.Writer) *jsonlSink {
	s := &jsonlSink{w: bufio.NewWriterSize(w, 64<<10)}
	s.quoter = json.NewEncoder(&s.quoted)
	s.quoter.SetEscapeHTML(false)
	for i := range columnDefs {
		s.keys[i] = append(strconv.AppendQuote(nil, columnDefs[i].name), ':')
	}
	return s
}

func (s *jsonlSink) row(r *exportRow) error {
	line := append(s.line[:0], '{')
	for col := range columnDefs {
		text, known, applies := appendCell(s.buf[:0], r, col)
		s.buf = text[:0]
		if !applies {
			continue
		}
		if len(line) > 1 {
			line = append(line, ',')
		}
		line = append(line, s.keys[col]...)
		switch {
		case !known:
			line = append(line, "null"...)
		case columnDefs[col].text:
			s.quoted.Reset()
			if err := s.quoter.Encode(string(text)); err != nil {
				return err
			}
			line = append(line, bytes.TrimSuffix(s.quoted.Bytes(), []byte("\n"))...)
		default:
			line = append(line, text...)
		}
	}
	s.line = append(line, '}', '\n')
	_, err := s.w.Write(s.line)
	return err
}

func (s *jsonlSink) flush() error { return s.w.Flush() }
