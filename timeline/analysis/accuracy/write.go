package accuracy

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
)

// File is the run as the tool of its format would have written it, in its
// encoding; nil for a Recorded run.
func (run Run) File() []byte {
	var b bytes.Buffer
	switch run.Format {
	case Recorded:
		return nil
	case QueryCSV, QueryCSVNoUnits, QueryCSVNoHeader, QueryCSVNoIndex:
		run.writeQuery(&b)
	case Dmon:
		run.writeDmon(&b)
	case DcgmiText:
		run.writeDcgmiText(&b)
	case DcgmiCSV:
		run.writeDcgmiCSV(&b)
	}
	return encode(b.Bytes(), run.Encoding)
}

// encode stores text in an encoding.
func encode(text []byte, e Encoding) []byte {
	switch e {
	case CRLF:
		return bytes.ReplaceAll(text, []byte("\n"), []byte("\r\n"))
	case UTF16LE:
		units := utf16.Encode([]rune(string(text)))
		out := make([]byte, 2, 2+2*len(units))
		out[0], out[1] = 0xff, 0xfe
		for _, u := range units {
			out = append(out, byte(u), byte(u>>8))
		}
		return out
	}
	return text
}

// queryColumn is one --query-gpu property or dcgmi field: its name, its
// unit as the header and the values write it (dcgmi writes none), and how
// to read it from a GPU's reading.
type queryColumn struct {
	name, unit string
	get        func(g gpuRead) float64
	digits     int
}

var queryColumns = []queryColumn{
	{"utilization.gpu", "%", func(g gpuRead) float64 { return g.util }, 0},
	{"memory.used", "MiB", func(g gpuRead) float64 { return g.mem }, 0},
	{"memory.total", "MiB", func(g gpuRead) float64 { return g.memTotal }, 0},
	{"power.draw", "W", func(g gpuRead) float64 { return g.power }, 2},
	{"power.limit", "W", func(g gpuRead) float64 { return g.limit }, 2},
	{"temperature.gpu", "", func(g gpuRead) float64 { return g.temp }, 0},
	{"clocks.sm", "MHz", func(g gpuRead) float64 { return g.clock }, 0},
}

// logged says which query columns a run's readings fill, and whether any
// clock-event reason is set: a property nvidia-smi was not asked for is no
// column at all. One pass over the run.
func (run Run) logged() (cols []queryColumn, reasons bool) {
	seen := make([]bool, len(queryColumns))
	run.ticks(func(_ time.Duration, gpus []gpuRead, _ *hostRead) {
		for _, g := range gpus {
			for k, c := range queryColumns {
				seen[k] = seen[k] || !math.IsNaN(c.get(g))
			}
			reasons = reasons || g.reasons != 0
		}
	})
	for k, c := range queryColumns {
		if seen[k] {
			cols = append(cols, c)
		}
	}
	return cols, reasons
}

// queryNames are the --query-gpu properties a query run logs, in order,
// with their units as its header writes them; a headerless run's, given to
// the import (--columns), without.
func (run Run) queryNames(cols []queryColumn, reasons bool) []string {
	names := []string{"timestamp"}
	if run.Format != QueryCSVNoIndex {
		names = append(names, "index")
	}
	names = append(names, "name")
	for _, c := range cols {
		if c.unit != "" && run.Format != QueryCSVNoHeader {
			names = append(names, c.name+" ["+c.unit+"]")
		} else {
			names = append(names, c.name)
		}
	}
	if reasons {
		names = append(names, "clocks_event_reasons.active")
	}
	return names
}

func (run Run) writeQuery(b *bytes.Buffer) {
	units := run.Format != QueryCSVNoUnits && run.Format != QueryCSVNoHeader
	index := run.Format != QueryCSVNoIndex
	cols, reasons := run.logged()
	if run.Format != QueryCSVNoHeader {
		b.WriteString(strings.Join(run.queryNames(cols, reasons), ", ") + "\n")
	}
	run.ticks(func(at time.Duration, gpus []gpuRead, _ *hostRead) {
		for gi, g := range gpus {
			// Each GPU's row is read a few ms after the one before.
			ts := SynthStart.Add(at + time.Duration(gi)*2*time.Millisecond).Format("2006/01/02 15:04:05.000")
			row := []string{ts}
			if index {
				row = append(row, strconv.Itoa(gi))
			}
			row = append(row, "NVIDIA H100 80GB HBM3")
			for _, c := range cols {
				v := c.get(g)
				s := cell(v, c.digits, "[N/A]")
				if units && c.unit != "" && !math.IsNaN(v) {
					s += " " + c.unit
				}
				row = append(row, s)
			}
			if reasons {
				row = append(row, fmt.Sprintf("0x%016x", g.reasons))
			}
			b.WriteString(strings.Join(row, ", ") + "\n")
		}
	})
}

// ImportColumns is what a user gives `gputop import --columns` for a
// headerless run; "" for the others.
func (run Run) ImportColumns() string {
	if run.Format != QueryCSVNoHeader {
		return ""
	}
	return strings.Join(run.queryNames(run.logged()), ",")
}

// cell is a value in a fixed-width column, "-" where not logged.
func cell(v float64, digits int, dash string) string {
	if math.IsNaN(v) {
		return dash
	}
	return strconv.FormatFloat(v, 'f', digits, 64)
}

// writeDmon writes `nvidia-smi dmon -s pucv`: power, temperature, util,
// clocks, violations and framebuffer, its header pair every 40 rows.
func (run Run) writeDmon(b *bytes.Buffer) {
	rows := 0
	run.ticks(func(_ time.Duration, gpus []gpuRead, _ *hostRead) {
		if rows%40 == 0 {
			b.WriteString("# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk  pviol  tviol     fb\n")
			b.WriteString("# Idx      W      C      C      %      %      %      %    MHz    MHz      %   bool     MB\n")
		}
		rows++
		for gi, g := range gpus {
			pviol, tviol := "0", "0"
			if g.reasons&nvmlPowerCap != 0 {
				pviol = "100"
			}
			if g.reasons&nvmlSWThermal != 0 {
				tviol = "1"
			}
			fmt.Fprintf(b, "%5d %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s\n", gi, cell(g.power, 0, "-"),
				cell(g.temp, 0, "-"), "-", cell(g.util, 0, "-"), cell(g.util*0.4, 0, "-"), "0", "0", "2619",
				cell(g.clock, 0, "-"), pviol, tviol, cell(g.mem, 0, "-"))
		}
	})
}

// dcgmiFields are the fields the dcgmi runs log, with how to read each.
var dcgmiFields = []queryColumn{
	{"GPUTL", "", func(g gpuRead) float64 { return g.util }, 0},
	{"SMACT", "", func(g gpuRead) float64 { return g.sm / 100 }, 3},
	{"POWER", "", func(g gpuRead) float64 { return g.power }, 3},
	{"PMLMT", "", func(g gpuRead) float64 { return g.limit }, 0},
	{"FBUSD", "", func(g gpuRead) float64 { return g.mem }, 0},
	{"FBTOT", "", func(g gpuRead) float64 { return g.memTotal }, 0},
	{"TMPTR", "", func(g gpuRead) float64 { return g.temp }, 0},
	{"SMCLK", "", func(g gpuRead) float64 { return g.clock }, 0},
	{"PCIRX", "", func(g gpuRead) float64 { return g.pcie }, 0},
}

// writeDcgmiText writes `dcgmi dmon -e ...`: its header every 30 ticks,
// "N/A" for a field the GPU does not give.
func (run Run) writeDcgmiText(b *bytes.Buffer) {
	rows := 0
	run.ticks(func(_ time.Duration, gpus []gpuRead, _ *hostRead) {
		if rows%30 == 0 {
			b.WriteString("#Entity   ")
			for _, f := range dcgmiFields {
				fmt.Fprintf(b, "%-12s", f.name)
			}
			b.WriteString("\nID\n")
		}
		rows++
		for gi, g := range gpus {
			fmt.Fprintf(b, "%-10s", "GPU "+strconv.Itoa(gi))
			for _, f := range dcgmiFields {
				fmt.Fprintf(b, "%-12s", cell(f.get(g), f.digits, "N/A"))
			}
			b.WriteString("\n")
		}
	})
}

// writeDcgmiCSV writes DCGM fields as CSV with epoch-second times, as
// scripts around dcgmi do.
func (run Run) writeDcgmiCSV(b *bytes.Buffer) {
	b.WriteString("EntityId")
	for _, f := range dcgmiFields {
		b.WriteString("," + f.name)
	}
	b.WriteString(",TimeStamp\n")
	run.ticks(func(at time.Duration, gpus []gpuRead, _ *hostRead) {
		for gi, g := range gpus {
			b.WriteString(strconv.Itoa(gi))
			for _, f := range dcgmiFields {
				b.WriteString("," + cell(f.get(g), f.digits, "N/A"))
			}
			fmt.Fprintf(b, ",%d\n", SynthStart.Add(at).Unix())
		}
	})
}
