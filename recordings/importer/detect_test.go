package importer

import (
	"strings"
	"testing"
)

func TestDetect(t *testing.T) {
	for _, c := range []struct {
		name, log string
		columns   bool
		want      Format
		err       string
	}{
		{"query CSV", "timestamp, name, utilization.gpu [%]\n2026/01/03 15:36:53.507, NVIDIA H200, 1 %\n", false, NvidiaSMICSV, ""},
		{"query CSV nounits", "index,temperature.gpu,power.draw\n0, 48, 397.30\n", false, NvidiaSMICSV, ""},
		{"custom header", "timestamp,gpu_index,temperature_C,utilization_gpu_percent,power_W\n", false, NvidiaSMICSV, ""},
		{"BOM and CRLF", "\uFEFFtimestamp, power.draw [W]\r\n2025/07/27 00:34:45.155, 72.36 W\r\n", false, NvidiaSMICSV, ""},
		{"header-less CSV is nvidia-smi (the parser asks for --columns)", "2025/07/27 00:34:45.155, 72.36 W, 0 %\n", false, NvidiaSMICSV, ""},
		{"header-less CSV with --columns", "0, 72.36, 0\n", true, NvidiaSMICSV, ""},
		{"dmon new", "# gpu    pwr  gtemp  mtemp     sm    mem\n# Idx      W      C      C      %      %\n", false, Dmon, ""},
		{"dmon old", "# gpu   pwr  temp    sm   mem   enc   dec  mclk  pclk\n", false, Dmon, ""},
		{"dmon -o DT", "#Date       Time        gpu   pwr gtemp\n#YYYYMMDD   HH:MM:SS    Idx     W     C\n", false, Dmon, ""},
		{"dmon csv", "#gpu, pwr, gtemp, sm\n#Idx, W, C, %\n 0, 10, 52, 5\n", false, Dmon, ""},
		{"dcgmi dmon", "#Entity   GRACT   SMACT\nID\nGPU 0     0.912   0.884\n", false, DcgmiCSV, ""},
		{"dcgmi dmon with spaced #", "# Entity  GRACT  TENSO  DRAMA\n      Id\n    GPU 0  0.000  0.000  0.000\n", false, DcgmiCSV, ""},
		{"dcgmi dmon without header", "GPU 0     0.912   0.884\n", false, DcgmiCSV, ""},
		{"DCGM CSV", "EntityId,GRACT,FBUSD,TimeStamp\n0,0.000,0,1661698242\n", false, DcgmiCSV, ""},
		{"DCGM CSV, only field names", "GRACT,SMACT,timestamp\n", false, DcgmiCSV, ""},
		{"comments first", "# my notes\n\n# gpu pwr sm\n", false, Dmon, ""},
		{"empty", "\n\n", false, "", "empty"},
		{"fixed-width table", "GPU Utilization Monitor - Press Ctrl+C to stop\n====\nTime GPU% Mem\n", false, "", "unknown log format (nvidia-smi-csv, dmon, dcgmi-csv)"},
		{"Prometheus answer", `{"status":"success","data":{"resultType":"matrix","result":[]}}` + "\n", false, "", "a Prometheus answer: import it with gputop import prometheus FILE"},
		{"JSON lines", `{"system.gpu.0.gpu": 4.07, "_timestamp": 1582109340}` + "\n", false, "", "unknown log format"},
		{"vmstat", "procs -----------memory---------- ---swap--\n r  b   swpd   free\n", false, "", "unknown log format"},
		{"only comments", "# hello\n# world\n", false, "", "only comment lines"},
		{"CSV of something else", "a,b,c\n1,2,3\n", false, "", "unknown log format"},
	} {
		got, err := Detect([]byte(c.log), c.columns)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %q, %v; want error %q", c.name, got, err, c.err)
			}
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case got != c.want:
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestUnknownFormatErrorNamesTheFormats(t *testing.T) {
	_, err := Detect([]byte("hello world\n"), false)
	for _, f := range Formats {
		if err == nil || !strings.Contains(err.Error(), string(f)) {
			t.Errorf("error %v does not name %s", err, f)
		}
	}
}
