package importer

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gputop-dev/gputop/timeline"
)

// Column names of nvidia-smi --query-gpu CSV, and of CSVs shaped like it.
//
// A header name is normalised before it is looked up: the unit in brackets
// or parentheses is taken off ("power.draw [W]" → "power.draw", unit "W"),
// letters are lowercased, and every run of other characters becomes "_"
// ("utilization.gpu" → "utilization_gpu"). A name that is still unknown is
// tried again without a unit word at its end ("temperature_C" →
// "temperature", "utilization_gpu_percent" → "utilization_gpu", "power_W" →
// "power"). The aliases below then name the --query-gpu property it is.

// column is what one CSV column holds.
type column struct {
	kind   columnKind
	metric string  // for colMetric: the timeline metric
	unit   unit    // for colMetric
	scale  float64 // for unitMiB: bytes per unit of values without a suffix
	bit    uint64  // for colReason: the timeline.Throttle bit
	rank   int     // among columns of one metric, the lowest rank is used
	name   string  // the header as written, for notes
}

type columnKind uint8

const (
	colIgnored columnKind = iota // the zero column: a name the tables here do not hold
	colTimestamp
	colDate // a date column, joined with a time column
	colTime
	colIndex
	colName
	colUUID // uuid, pci.bus_id or serial: names one GPU
	colMetric
	colMemFree     // memory.free: gives memory.used when only total and free are logged
	colThrottle    // clocks_event_reasons.active, a hex NVML mask
	colReason      // clocks_event_reasons.<reason>: Active / Not Active
	colUnsupported // a reason column that holds nothing back (gpu_idle)
)

// smiProperties are the --query-gpu properties gputop imports, by
// normalised name.
var smiProperties = map[string]column{
	"timestamp":                   {kind: colTimestamp},
	"date":                        {kind: colDate},
	"time":                        {kind: colTime},
	"index":                       {kind: colIndex},
	"name":                        {kind: colName},
	"uuid":                        {kind: colUUID, rank: 0},
	"pci_bus_id":                  {kind: colUUID, rank: 1},
	"serial":                      {kind: colUUID, rank: 2},
	"utilization_gpu":             {kind: colMetric, metric: timeline.GPUUtil, unit: unitPercent},
	"utilization_memory":          {kind: colMetric, metric: timeline.GPUMemUtil, unit: unitPercent},
	"memory_used":                 {kind: colMetric, metric: timeline.GPUMemUsed, unit: unitMiB, scale: MiB},
	"memory_total":                {kind: colMetric, metric: timeline.GPUMemTotal, unit: unitMiB, scale: MiB},
	"memory_free":                 {kind: colMemFree, unit: unitMiB, scale: MiB},
	"power_draw":                  {kind: colMetric, metric: timeline.GPUPower, unit: unitWatts},
	"power_draw_average":          {kind: colMetric, metric: timeline.GPUPower, unit: unitWatts, rank: 1},
	"power_draw_instant":          {kind: colMetric, metric: timeline.GPUPower, unit: unitWatts, rank: 2},
	"enforced_power_limit":        {kind: colMetric, metric: timeline.GPUPowerLimit, unit: unitWatts},
	"power_limit":                 {kind: colMetric, metric: timeline.GPUPowerLimit, unit: unitWatts, rank: 1},
	"temperature_gpu":             {kind: colMetric, metric: timeline.GPUTemp, unit: unitCelsius},
	"clocks_sm":                   {kind: colMetric, metric: timeline.GPUClockSM, unit: unitMHz},
	"clocks_mem":                  {kind: colMetric, metric: timeline.GPUClockMem, unit: unitMHz},
	"clocks_event_reasons_active": {kind: colThrottle},
}

// smiAliases maps other normalised names to a property above. The
// `--query-gpu` long forms come first, then names seen in hand-made headers.
var smiAliases = map[string]string{
	"gpu_name": "name", "product_name": "name", "gpu_uuid": "uuid", "pci_bus": "pci_bus_id", "bus_id": "pci_bus_id", "gpu_bus_id": "pci_bus_id",
	"gpu_serial":                     "serial",
	"clocks_current_sm":              "clocks_sm",
	"clocks_current_mem":             "clocks_mem",
	"clocks_current_memory":          "clocks_mem",
	"clocks_memory":                  "clocks_mem",
	"power_average":                  "power_draw_average",
	"power_instant":                  "power_draw_instant",
	"power_limit_enforced":           "enforced_power_limit",
	"clocks_throttle_reasons_active": "clocks_event_reasons_active",
	"clock_throttle_reasons_active":  "clocks_event_reasons_active",
	"throttle_reasons":               "clocks_event_reasons_active",
	// Hand-made headers (nanogpt's gpu_profiler.sh writes
	// timestamp,gpu_index,temperature_C,utilization_gpu_percent,power_W).
	"datetime": "timestamp", "date_time": "timestamp", "ts": "timestamp", "time_stamp": "timestamp",
	"gpu_index": "index", "gpu_id": "index", "gpu_idx": "index", "idx": "index", "device_index": "index",
	"gpu_util": "utilization_gpu", "gpu_utilization": "utilization_gpu", "util_gpu": "utilization_gpu",
	"utilization": "utilization_gpu", "util": "utilization_gpu",
	"mem_util": "utilization_memory", "memory_util": "utilization_memory", "memory_utilization": "utilization_memory",
	"util_mem": "utilization_memory", "util_memory": "utilization_memory",
	"mem_used": "memory_used", "used_memory": "memory_used", "gpu_memory_used": "memory_used",
	"mem_total": "memory_total", "total_memory": "memory_total", "gpu_memory_total": "memory_total",
	"mem_free": "memory_free", "free_memory": "memory_free",
	"power": "power_draw", "power_usage": "power_draw", "gpu_power": "power_draw",
	"pwr_limit": "power_limit", "gpu_power_limit": "power_limit",
	"temperature": "temperature_gpu", "temp": "temperature_gpu", "gpu_temp": "temperature_gpu",
	"gpu_temperature": "temperature_gpu", "temp_gpu": "temperature_gpu",
	"clock_sm": "clocks_sm", "sm_clock": "clocks_sm", "mem_clock": "clocks_mem", "memory_clock": "clocks_mem",
	"clock_mem": "clocks_mem",
	// More hand-made names: loggers that say vram, gpu_num, epoch.
	"epoch": "timestamp", "unix_time": "timestamp", "unixtime": "timestamp", "time_unix": "timestamp",
	"gpu": "index", "gpu_num": "index", "gpu_no": "index", "gpu_number": "index", "device_id": "index",
	"gpu_usage": "utilization_gpu",
	"vram_used": "memory_used", "vram_total": "memory_total", "vram_free": "memory_free", "vram_usage": "memory_used",
	"fb_used": "memory_used", "fb_total": "memory_total", "fb_free": "memory_free", "memory_usage": "memory_used",
	"gpu_power_draw": "power_draw",
	// GPU-Z's sensor log (Windows): Date, GPU Clock [MHz], GPU Temperature
	// [°C], GPU Load [%], Memory Used (Dedicated) [MB], Board Power Draw [W].
	"gpu_clock": "clocks_sm", "gpu_load": "utilization_gpu", "memory_controller_load": "utilization_memory",
	"board_power_draw": "power_draw",
}

// unitWords are the unit words a hand-made header may end with, and the
// bytes per unit they mean for memory columns (0 for other units).
var unitWords = []struct {
	suffix string
	scale  float64
}{
	{"_percent", 0}, {"_pct", 0}, {"_celsius", 0}, {"_degc", 0}, {"_c", 0}, {"_watts", 0}, {"_w", 0}, {"_mhz", 0},
	{"_mib", MiB}, {"_mb", MiB}, {"_gib", gib}, {"_gb", gib}, {"_kib", kib}, {"_kb", kib}, {"_bytes", 1},
}

// normalizeHeader splits a header into its normalised name and the unit
// written in brackets or parentheses, if any.
func normalizeHeader(h string) (name, unit string) {
	if i := strings.IndexAny(h, "[("); i >= 0 {
		if j := strings.IndexAny(h[i:], "])"); j > 0 {
			unit = strings.TrimSpace(h[i+1 : i+j])
		}
		h = h[:i]
	}
	var b strings.Builder
	sep := false
	for _, c := range strings.ToLower(strings.TrimSpace(h)) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			if sep && b.Len() > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(c)
			sep = false
		} else {
			sep = true
		}
	}
	return b.String(), unit
}

// lookupSMIColumn names the column a header holds; kind colIgnored when
// gputop has no metric for it.
func lookupSMIColumn(header string) column {
	name, unitText := normalizeHeader(header)
	c, ok := smiColumn(name)
	scale, _ := memoryScale(unitText)
	for i := 0; !ok && i < len(unitWords); i++ {
		if base, cut := strings.CutSuffix(name, unitWords[i].suffix); cut {
			c, ok = smiColumn(base)
			scale = unitWords[i].scale
		}
	}
	if ok && c.unit == unitMiB && scale > 0 {
		c.scale = scale
	}
	c.name = CleanLabel(header)
	return c
}

// smiColumn looks a normalised name up among the properties and aliases,
// including the per-reason throttle columns.
func smiColumn(name string) (column, bool) {
	if c, ok := smiProperties[name]; ok {
		return c, true
	}
	if p, ok := smiAliases[name]; ok {
		return smiProperties[p], true
	}
	for _, prefix := range []string{"clocks_event_reasons_", "clocks_throttle_reasons_", "clock_throttle_reasons_"} {
		if suffix, ok := strings.CutPrefix(name, prefix); ok {
			if bit, ok := throttleColumn(suffix); ok {
				return column{kind: colReason, bit: bit}, true
			}
			return column{kind: colUnsupported}, true
		}
	}
	return column{}, false
}

// putMetrics puts a row's readings of every metric column into t, in
// column order: fields are the row's values, one per column.
func putMetrics(t *table, cols []column, fields []string) error {
	for i, c := range cols {
		if c.kind != colMetric {
			continue
		}
		v, err := parseValue(fields[i], c.unit, c.scale)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		t.put(c.metric, v)
	}
	return nil
}

// putReasons puts into t the throttle mask that a row's per-reason
// columns (reasons, places in cols) make, if it has any: the bit of each
// column active reads as on, NaN when none of them has a reading.
func putReasons(t *table, cols []column, reasons []int, fields []string, active func(string) (on, ok bool, err error)) error {
	if len(reasons) == 0 {
		return nil
	}
	var bits uint64
	known := false
	for _, i := range reasons {
		on, ok, err := active(fields[i])
		if err != nil {
			return fmt.Errorf("%s: %w", cols[i].name, err)
		}
		known = known || ok
		if on {
			bits |= cols[i].bit
		}
	}
	v := math.NaN()
	if known {
		v = float64(bits)
	}
	t.put(timeline.GPUThrottle, v)
	return nil
}

// firstOf is the place of the first column of kind k, or -1: the first of
// two columns of one kind wins.
func firstOf(cols []column, k columnKind) int {
	return slices.IndexFunc(cols, func(c column) bool { return c.kind == k })
}

// keepOnePerMetric leaves one column per metric, the lowest ranked (the
// first among equals), and marks the others ignored, so that no sample
// holds a metric twice. It returns the column kept for each metric.
func keepOnePerMetric(cols []column) map[string]int {
	kept := map[string]int{}
	for i, c := range cols {
		if c.kind != colMetric {
			continue
		}
		if j, dup := kept[c.metric]; dup {
			if c.rank >= cols[j].rank {
				cols[i].kind = colIgnored
				continue
			}
			cols[j].kind = colIgnored
		}
		kept[c.metric] = i
	}
	return kept
}
