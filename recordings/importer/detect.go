package importer

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// readFormats names the formats Detect recognises: "nvidia-smi-csv, dmon,
// dcgmi-csv".
func readFormats() string {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// maxDetectLines is how many non-blank lines detection reads: comments,
// banners and a header come first in every format.
const maxDetectLines = 20

// Detect tells a log's format from its first lines (head is the start of
// the log; a partial last line is fine). haveColumns says the caller gave
// the column list of a header-less CSV. The error for a log it does not
// recognise names the formats it reads.
//
// The rules, in order, on the first non-blank lines:
//   - a comment line `# gpu pwr ...` (dmon's header) is dmon;
//   - a comment line `#Entity GRACT ...` is dcgmi dmon text;
//   - other comment lines are skipped;
//   - the first other line decides: a CSV header with an entity column or
//     only DCGM field names is DCGM; one with --query-gpu names (or known
//     aliases) is nvidia-smi; a CSV line starting with a timestamp is a
//     header-less nvidia-smi CSV (its parser asks for --columns); a line
//     `GPU 0 ...` is dcgmi dmon text whose header was cut off.
func Detect(head []byte, haveColumns bool) (Format, error) {
	head = bytes.TrimPrefix(head, []byte("\uFEFF"))
	seen := 0
	for len(head) > 0 && seen < maxDetectLines {
		var raw []byte
		raw, head, _ = bytes.Cut(head, []byte("\n"))
		line := strings.TrimSpace(string(raw))
		if line == "" {
			continue
		}
		seen++
		if line[0] == '#' {
			words := splitFields(strings.ToLower(strings.TrimLeft(line, "#")), nil)
			if _, dmon := newDmonHeader(words); dmon {
				return Dmon, nil
			}
			if len(words) > 1 && words[0] == "entity" {
				return DcgmiCSV, nil
			}
			continue
		}
		if f, ok := detectLine(line, haveColumns); ok {
			return f, nil
		}
		if (line[0] == '{' || line[0] == '[') && strings.Contains(line, `"status"`) {
			return "", errors.New("a Prometheus answer: import it with gputop import prometheus FILE")
		}
		// The formats it knows, not the line it read: the person has the
		// file, and the message fits one line of a terminal.
		return "", fmt.Errorf("unknown log format (%s)", readFormats())
	}
	if seen == 0 {
		return "", errors.New("the log is empty")
	}
	return "", fmt.Errorf("unknown log format (%s): only comment lines", readFormats())
}

// detectLine tells the format from the first line that is not a comment.
func detectLine(line string, haveColumns bool) (Format, bool) {
	if words := splitFields(line, nil); len(words) > 2 && strings.HasPrefix(strings.ToUpper(words[0]), "GPU") {
		if _, err := parseIndex(words[1]); err == nil {
			return DcgmiCSV, true
		}
	}
	if !strings.Contains(line, ",") {
		return "", false
	}
	fields := splitCSV(line, nil)
	if mayBeHeader(line) {
		if h, err := newDCGMHeader(fields, line); err == nil && (h.ent >= 0 || !anySMIColumn(fields)) {
			return DcgmiCSV, true
		}
		if _, err := newSMIHeader(fields); err == nil {
			return NvidiaSMICSV, true
		}
		return "", false
	}
	if _, _, err := parseTime(fields[0]); err == nil || haveColumns {
		return NvidiaSMICSV, true
	}
	return "", false
}

// anySMIColumn says whether a header has a --query-gpu metric column.
func anySMIColumn(fields []string) bool {
	for _, f := range fields {
		switch lookupSMIColumn(f).kind {
		case colMetric, colMemFree, colThrottle, colReason:
			return true
		}
	}
	return false
}
