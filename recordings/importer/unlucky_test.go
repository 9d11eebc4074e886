package importer

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/gputop-dev/gputop/timeline"
)

// Logs saved the unlucky ways (testdata/unlucky, made by its make.py, see
// testdata/README.md): UTF-16 from PowerShell and Notepad, Excel's UTF-8
// with a byte order mark and CRLF, a hand-made logger's header names and
// GPU-Z's sensor log. Each imports, to the same readings where the same
// readings were saved.
func TestUnluckyLogsImport(t *testing.T) {
	read := func(name string) *Result {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("testdata", "unlucky", name))
		if err != nil {
			t.Fatal(err)
		}
		res, err := Import(bytes.NewReader(b), Options{Origin: name})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkResult(t, res)
		return res
	}
	le, be, excel := read("smi-powershell-utf16le.csv"), read("smi-notepad-utf16be.csv"), read("smi-excel-utf8bom.csv")
	if len(le.Samples) != 20 || len(le.Info.GPUs) != 2 || le.Info.GPUs[0].Name != "NVIDIA GeForce RTX 4090" {
		t.Fatalf("UTF-16 LE: %d samples, GPUs %+v", len(le.Samples), le.Info.GPUs)
	}
	if !reflect.DeepEqual(le.Samples, be.Samples) || !reflect.DeepEqual(le.Samples, excel.Samples) {
		t.Error("the same readings saved three ways import differently")
	}
	if !hasNote(le, "the log is UTF-16 LE text") || !hasNote(be, "the log is UTF-16 BE text") || hasNote(excel, "UTF-16") {
		t.Errorf("notes: LE %q, BE %q, Excel %q", le.Info.Notes, be.Info.Notes, excel.Info.Notes)
	}
	if p := value(t, le.Samples[0], 0, timeline.GPUPower); p < 270 || p > 300 {
		t.Errorf("GPU0's power %v W", p)
	}

	hand := read("hand-made-logger.csv")
	if len(hand.Samples) != 30 || len(hand.Info.GPUs) != 2 {
		t.Fatalf("hand-made logger: %d samples, %d GPUs", len(hand.Samples), len(hand.Info.GPUs))
	}
	s := hand.Samples[0]
	if u, m, p, c := value(t, s, 1, timeline.GPUUtil), value(t, s, 1, timeline.GPUMemUsed), value(t, s, 1, timeline.GPUPower),
		value(t, s, 1, timeline.GPUTemp); u < 90 || m < 40<<30 || m > 41<<30 || p < 580 || c < 66 {
		t.Errorf("gpu_util%% %v, vram_used_mb %v bytes, power_W %v, temp_c %v", u, m, p, c)
	}

	gpuz := read("gpuz-sensor-log.txt")
	if len(gpuz.Samples) != 25 || len(gpuz.Info.GPUs) != 1 {
		t.Fatalf("GPU-Z: %d samples, %d GPUs", len(gpuz.Samples), len(gpuz.Info.GPUs))
	}
	s = gpuz.Samples[0]
	for m, lo := range map[string]float64{timeline.GPUClockSM: 2745, timeline.GPUClockMem: 1312, timeline.GPUUtil: 90,
		timeline.GPUMemUtil: 40, timeline.GPUMemUsed: 17 << 30, timeline.GPUPower: 290, timeline.GPUTemp: 63} {
		if v := value(t, s, 0, m); v < lo {
			t.Errorf("GPU-Z %s = %v, want at least %v", m, v, lo)
		}
	}
	if !hasNote(gpuz, "Fan Speed (%) [%]") || hasNote(gpuz, "[�C], ,") {
		t.Errorf("GPU-Z notes %q", gpuz.Info.Notes)
	}
}

// The alias table reads the header names hand-made loggers use, with a
// unit word at their end.
func TestHeaderAliases(t *testing.T) {
	for header, want := range map[string]column{
		"vram_used_mb":      {kind: colMetric, metric: timeline.GPUMemUsed, scale: MiB},
		"VRAM used (GB)":    {kind: colMetric, metric: timeline.GPUMemUsed, scale: gib},
		"gpu_util%":         {kind: colMetric, metric: timeline.GPUUtil},
		"power_W":           {kind: colMetric, metric: timeline.GPUPower},
		"temp_c":            {kind: colMetric, metric: timeline.GPUTemp},
		"Temp [°C]":         {kind: colMetric, metric: timeline.GPUTemp},
		"timestamp":         {kind: colTimestamp},
		"epoch":             {kind: colTimestamp},
		"gpu_index":         {kind: colIndex},
		"gpu":               {kind: colIndex},
		"GPU Load [%]":      {kind: colMetric, metric: timeline.GPUUtil},
		"fb_used_mib":       {kind: colMetric, metric: timeline.GPUMemUsed, scale: MiB},
		"sm_clock_mhz":      {kind: colMetric, metric: timeline.GPUClockSM},
		"fan_speed_percent": {kind: colIgnored},
	} {
		c := lookupSMIColumn(header)
		if c.kind != want.kind || c.metric != want.metric || (want.scale != 0 && c.scale != want.scale) {
			t.Errorf("%q: kind %d metric %q scale %v, want kind %d metric %q scale %v", header, c.kind, c.metric, c.scale, want.kind, want.metric, want.scale)
		}
	}
}

// UTF-16 is decoded as it is read: pairs split across blocks, lone
// surrogates and an odd last byte become U+FFFD, and a log without a byte
// order mark is told by its NULs.
func TestUTF16Decoding(t *testing.T) {
	text := "gpu 😀 ok\n" + strings.Repeat("x", utf16Block-3) + "😀\n"
	units := utf16.Encode([]rune(text))
	le := make([]byte, 0, 2*len(units)+2)
	for _, u := range units {
		le = append(le, byte(u), byte(u>>8))
	}
	for _, c := range []struct {
		name string
		in   []byte
		want string
		enc  string
	}{
		{"with a BOM, a pair across blocks", append([]byte{0xFF, 0xFE}, le...), text, "UTF-16 LE"},
		{"without a BOM", le, text, "UTF-16 LE"},
		{"a lone surrogate and an odd byte", []byte{0xFF, 0xFE, 'a', 0, 0x00, 0xD8, 'b', 0, 'c'}, "a\uFFFDb\uFFFD", "UTF-16 LE"},
		{"big endian", []byte{0xFE, 0xFF, 0, 'h', 0, 'i'}, "hi", "UTF-16 BE"},
		{"UTF-8 is left alone", []byte("\uFEFFhi\r\n"), "\uFEFFhi\r\n", ""},
	} {
		r, enc, err := DecodeText(bytes.NewReader(c.in))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil || string(got) != c.want || enc != c.enc {
			t.Errorf("%s: %q %q %v, want %q %q", c.name, got[:min(len(got), 40)], enc, err, c.want[:min(len(c.want), 40)], c.enc)
		}
	}
}

// Detection and the line reader take every unlucky start: a BOM, CRLF,
// a header repeated, in any of the encodings.
func TestUnluckyStartsDetect(t *testing.T) {
	body := "timestamp, index, utilization.gpu [%]\r\n2025/01/01 00:00:00, 0, 50 %\r\n"
	for _, in := range [][]byte{[]byte(body), []byte("\uFEFF" + body), utf16LE("\uFEFF" + body)} {
		res, err := Import(bytes.NewReader(in), Options{})
		if err != nil {
			t.Errorf("%q: %v", in[:8], err)
			continue
		}
		if len(res.Samples) != 1 || value(t, res.Samples[0], 0, timeline.GPUUtil) != 50 {
			t.Errorf("%q: %d samples %v", in[:8], len(res.Samples), res.Samples)
		}
	}
}

func utf16LE(s string) []byte {
	var out []byte
	for _, u := range utf16.Encode([]rune(s)) {
		out = append(out, byte(u), byte(u>>8))
	}
	return out
}
