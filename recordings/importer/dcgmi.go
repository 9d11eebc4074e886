package importer

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gputop-dev/gputop/timeline"
)

// DCGM data comes in two shapes, read by one parser:
//
//	EntityId,GRACT,FBUSD,TimeStamp        CSV written by scripts around dcgmi
//	0,0.000,3,1661698243                  (MIGProfiler's dcgm_recorder.py)
//
//	#Entity   GRACT   SMACT   FBUSD       the text of `dcgmi dmon -e ...`:
//	ID                                    no times, one row per entity
//	GPU 0     0.912   0.884   18342       per tick (-d, 1 s by default)
//	GPU-I 1   0.750   0.750   N/A
//
// Columns are DCGM field short names (or DCGM_FI_* long names). Profiling
// fields (GRACT, SMACT, SMOCC, TENSO, DRAMA) are ratios 0..1, imported as
// %. Entity "GPU n" is GPU n; MIG entities (GPU-I, GPU-CI) become GPUs
// numbered after the physical ones and are marked MIG. A CSV's bare
// EntityId is taken as the GPU index; a CSV without one is of gpu0.

// dcgmFields are the DCGM fields gputop imports, by lowercased short name.
// GPUTL (NVML's utilization) outranks GRACT for gpu.util when both are there.
var dcgmFields = map[string]column{
	"gputl": {kind: colMetric, metric: timeline.GPUUtil, unit: unitPercent},
	"gract": {kind: colMetric, metric: timeline.GPUUtil, unit: unitRatio, rank: 1},
	"smact": {kind: colMetric, metric: timeline.GPUSMActive, unit: unitRatio},
	"smocc": {kind: colMetric, metric: timeline.GPUSMOccupancy, unit: unitRatio},
	"tenso": {kind: colMetric, metric: timeline.GPUTensor, unit: unitRatio},
	"drama": {kind: colMetric, metric: timeline.GPUDRAMBW, unit: unitRatio},
	"mcutl": {kind: colMetric, metric: timeline.GPUMemUtil, unit: unitPercent},
	"fbusd": {kind: colMetric, metric: timeline.GPUMemUsed, unit: unitMiB, scale: MiB},
	"fbtot": {kind: colMetric, metric: timeline.GPUMemTotal, unit: unitMiB, scale: MiB},
	"power": {kind: colMetric, metric: timeline.GPUPower, unit: unitWatts},
	"pmlmt": {kind: colMetric, metric: timeline.GPUPowerLimit, unit: unitWatts},
	"tmptr": {kind: colMetric, metric: timeline.GPUTemp, unit: unitCelsius},
	"gtemp": {kind: colMetric, metric: timeline.GPUTemp, unit: unitCelsius},
	"smclk": {kind: colMetric, metric: timeline.GPUClockSM, unit: unitMHz},
	"mmclk": {kind: colMetric, metric: timeline.GPUClockMem, unit: unitMHz},
	"pcitx": {kind: colMetric, metric: timeline.GPUPCIeTx, unit: unitBytesPerSec},
	"pcirx": {kind: colMetric, metric: timeline.GPUPCIeRx, unit: unitBytesPerSec},
}

// dcgmLongNames maps DCGM_FI_PROF_* / DCGM_FI_DEV_* names (without that
// prefix, lowercased) to short names.
var dcgmLongNames = map[string]string{
	"gr_engine_active": "gract", "sm_active": "smact", "sm_occupancy": "smocc",
	"pipe_tensor_active": "tenso", "dram_active": "drama", "gpu_util": "gputl", "mem_copy_util": "mcutl",
	"fb_used": "fbusd", "fb_total": "fbtot", "power_usage": "power", "power_mgmt_limit": "pmlmt",
	"enforced_power_limit": "pmlmt", "gpu_temp": "tmptr", "sm_clock": "smclk", "mem_clock": "mmclk",
	"pcie_tx_bytes": "pcitx", "pcie_rx_bytes": "pcirx",
}

// dcgmColumn names what a DCGM header field holds.
func dcgmColumn(header string) column {
	name, _ := normalizeHeader(header)
	for _, prefix := range []string{"dcgm_fi_prof_", "dcgm_fi_dev_"} {
		if long, ok := strings.CutPrefix(name, prefix); ok {
			name = dcgmLongNames[long]
		}
	}
	switch name {
	case "entityid", "entity_id", "entity", "gpu", "gpu_id", "gpuid":
		return column{kind: colIndex, name: CleanLabel(header)}
	case "timestamp", "time_stamp", "time", "ts":
		return column{kind: colTimestamp, name: CleanLabel(header)}
	}
	c := dcgmFields[name]
	c.name = CleanLabel(header)
	return c
}

// dcgmHeader is how to read DCGM rows.
type dcgmHeader struct {
	line  string
	cols  []column
	stamp int // timestamp column of a CSV, or -1
	ent   int // entity column of a CSV, or -1
}

func newDCGMHeader(fields []string, line string) (*dcgmHeader, error) {
	h := &dcgmHeader{line: line, cols: make([]column, len(fields))}
	for i, f := range fields {
		h.cols[i] = dcgmColumn(f)
	}
	h.ent = firstOf(h.cols, colIndex)
	h.stamp = firstOf(h.cols, colTimestamp)
	if len(keepOnePerMetric(h.cols)) == 0 {
		return nil, errors.New("no DCGM field gputop can import: expected short names such as GRACT, SMACT, FBUSD, POWER")
	}
	return h, nil
}

// entities numbers DCGM entities as GPUs: "GPU n" is n, MIG instances come
// after the highest physical GPU, in order of appearance.
type entities struct {
	other map[string]int // label → provisional number, ≥ migBase
	names []string
}

const migBase = MaxGPUIndex + 1

// gpu returns the (provisional, for MIG entities) GPU number of an entity.
func (e *entities) gpu(kind, id string) (int, error) {
	n, err := parseIndex(id)
	if err != nil {
		return 0, err
	}
	if strings.EqualFold(kind, "GPU") {
		return n, nil
	}
	label := CleanLabel(strings.ToUpper(kind)) + " " + strconv.Itoa(n)
	if g, ok := e.other[label]; ok {
		return g, nil
	}
	if len(e.names) > MaxGPUIndex {
		return 0, fmt.Errorf("more than %d entities", MaxGPUIndex+1)
	}
	e.other[label] = migBase + len(e.names)
	e.names = append(e.names, label)
	return migBase + len(e.names) - 1, nil
}

// parseDCGM reads dcgmi dmon text or a DCGM CSV.
func parseDCGM(lines *lineReader) (*table, error) {
	t := newTable()
	t.keyed = true
	ents := &entities{other: map[string]int{}}
	var h *dcgmHeader
	var fields []string
	csv := false
	for {
		text, n, err := lines.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		trimmed := strings.TrimSpace(text)
		if trimmed == "" || (h != nil && text == h.line) {
			continue
		}
		if h == nil || (!csv && trimmed[0] == '#') {
			next, isCSV, err := dcgmHeaderLine(trimmed, n)
			if err != nil {
				return nil, err
			}
			if next == nil {
				continue // a comment before the header
			}
			h, csv = next, isCSV
			t.timed = h.stamp >= 0
			t.noteDCGM(h)
			continue
		}
		if !csv && isDCGMUnits(trimmed) {
			continue
		}
		if err := h.parseRow(t, ents, trimmed, csv, n, &fields); errors.Is(err, errTooLarge) {
			return nil, err
		} else if err != nil {
			t.fail(n, err)
		}
	}
	if h == nil {
		return nil, errors.New("no DCGM header ('#Entity GRACT ...' or 'EntityId,GRACT,...') in the log")
	}
	t.numberMIG(ents)
	return t, nil
}

// dcgmHeaderLine reads a header: `#Entity F1 F2` (text) or a CSV header.
// It returns nil for a comment line before the header.
func dcgmHeaderLine(line string, n int) (*dcgmHeader, bool, error) {
	csv := line[0] != '#'
	var fields []string
	if csv {
		fields = splitCSV(line, nil)
	} else {
		words := splitFields(strings.TrimLeft(line, "#"), nil)
		if len(words) == 0 || !strings.EqualFold(words[0], "Entity") {
			return nil, false, nil
		}
		fields = words[1:]
	}
	h, err := newDCGMHeader(fields, line)
	if err != nil {
		return nil, false, fmt.Errorf("line %d: %w", n, err)
	}
	return h, csv, nil
}

// isDCGMUnits spots the second header line of dcgmi dmon: "ID" or "Id",
// then units such as "(us)" or "(C)".
func isDCGMUnits(line string) bool {
	w, _, _ := strings.Cut(line, " ")
	return strings.EqualFold(w, "ID")
}

// parseRow reads one entity's row.
func (h *dcgmHeader) parseRow(t *table, ents *entities, line string, csv bool, n int, buf *[]string) error {
	var values []string
	kind, id := "GPU", "0" // a CSV without an entity column is of gpu0
	if csv {
		*buf = splitCSV(line, *buf)
		if len(*buf) != len(h.cols) {
			return fmt.Errorf("%d fields, header has %d", len(*buf), len(h.cols))
		}
		values = *buf
		if h.ent >= 0 {
			id = values[h.ent]
			if k, i, ok := strings.Cut(id, " "); ok {
				kind, id = k, strings.TrimSpace(i)
			}
		}
	} else {
		*buf = splitFields(line, *buf)
		if len(*buf) != len(h.cols)+2 {
			return fmt.Errorf("%d fields, header has %d", len(*buf), len(h.cols)+2)
		}
		kind, id, values = (*buf)[0], (*buf)[1], (*buf)[2:]
	}
	gpu, err := ents.gpu(kind, id)
	if err != nil {
		return err
	}
	r := row{line: int32(n), ident: -1, gpu: int16(gpu)}
	if csv && h.stamp >= 0 {
		at, zoned, err := parseTime(values[h.stamp])
		if err != nil {
			return err
		}
		r.at = at.UnixNano()
		t.zoneless = t.zoneless || !zoned
	}
	return t.add(r, func() error { return putMetrics(t, h.cols, values) })
}

// numberMIG gives MIG entities their final GPU numbers, after the highest
// physical GPU.
func (t *table) numberMIG(ents *entities) {
	if len(ents.names) == 0 {
		return
	}
	next := 0
	for _, r := range t.rows {
		if int(r.gpu) < migBase {
			next = max(next, int(r.gpu)+1)
		}
	}
	for i := range t.rows {
		if g := int(t.rows[i].gpu); g >= migBase {
			t.rows[i].gpu = int16(next + g - migBase)
		}
	}
	for i, label := range ents.names {
		t.mig[next+i] = true
		t.note("gpu%d is DCGM entity %s (a MIG instance)", next+i, label)
	}
}

// noteDCGM says what a DCGM header's columns became.
func (t *table) noteDCGM(h *dcgmHeader) {
	for _, c := range h.cols {
		if c.kind == colMetric && c.unit == unitRatio && c.metric == timeline.GPUUtil {
			t.note("utilization is DCGM's GR_ENGINE_ACTIVE (GRACT): the share of time the graphics engine was busy")
		}
	}
	switch {
	case h.ent >= 0:
		t.note("%s is DCGM's entity id, taken as the GPU index (in a MIG group it numbers GPU instances)", h.cols[h.ent].name)
	case h.line[0] != '#':
		t.note("no entity column: every row is gpu0")
	}
}
