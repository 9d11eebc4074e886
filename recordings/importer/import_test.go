package importer

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

var jan1 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func importString(t *testing.T, log string, opts Options) *Result {
	t.Helper()
	res, err := Import(strings.NewReader(log), opts)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	checkResult(t, res)
	return res
}

func importError(t *testing.T, log string, opts Options, want string) {
	t.Helper()
	res, err := Import(strings.NewReader(log), opts)
	if err == nil {
		t.Fatalf("imported %d samples, want error %q", len(res.Samples), want)
	}
	if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %q, want one line containing %q", err, want)
	}
}

func TestNvidiaSMIToleratesRealLogQuirks(t *testing.T) {
	const header = "timestamp, index, power.draw [W], utilization.gpu [%]\r\n"
	log := "\uFEFF" + header +
		"2025/01/01 00:00:00.000, 0, 100.5 W, 50 %\r\n" +
		"2025/01/01 00:00:00.002, 1, 200.5 W, 60 %\r\n" +
		"\r\n" +
		header + // nvidia-smi restarted, appending to the same file
		"2025/01/01 00:00:01.000, 0, [N/A], [Not Supported]\r\n" +
		"2025/01/01 00:00:01.002, 1, 201 W, 61 %\r\n" +
		"2025/01/01 00:00:02.000, 0, 10" // killed mid-line
	res := importString(t, log, Options{Origin: "smi.csv"})
	if len(res.Samples) != 2 || len(res.Info.GPUs) != 2 || res.Format != NvidiaSMICSV {
		t.Fatalf("%d samples, %d GPUs, %s", len(res.Samples), len(res.Info.GPUs), res.Format)
	}
	if res.Info.Origin != "smi.csv (nvidia-smi-csv)" {
		t.Errorf("origin %q", res.Info.Origin)
	}
	if p := value(t, res.Samples[0], 1, timeline.GPUPower); p != 200.5 {
		t.Errorf("gpu1 power %v", p)
	}
	if p, u := value(t, res.Samples[1], 0, timeline.GPUPower), value(t, res.Samples[1], 0, timeline.GPUUtil); !math.IsNaN(p) || !math.IsNaN(u) {
		t.Errorf("[N/A] and [Not Supported] read as %v and %v, want NaN", p, u)
	}
	if !hasNote(res, "skipped 1 unreadable line; the first: line 8: 3 fields, header has 4") {
		t.Errorf("notes %q", res.Info.Notes)
	}
}

func TestNvidiaSMIRefusesGarbage(t *testing.T) {
	importError(t, "timestamp, power.draw [W]\n2025/01/01 00:00:00, 10 W\nhello\n2025/01/01 00:00:02, lots\nfoo, bar, baz\n",
		Options{}, "line 3: 1 fields, header has 2 (3 of 4 data lines could not be read)")
	const nothingToImport = "timestamp, fan.speed [%], pstate\n2025/01/01 00:00:00, 10 %, P0\n"
	importError(t, nothingToImport, Options{}, "unknown log format")
	importError(t, nothingToImport, Options{Format: NvidiaSMICSV}, "line 1: no column gputop can import")
	importError(t, "timestamp, power.draw [W]\n", Options{}, "no data lines")
	importError(t, "timestamp, index, power.draw [W]\n2025/01/01 00:00:00, 99999, 10 W\n", Options{}, "line 2: GPU index")
}

func TestNvidiaSMIWithoutHeader(t *testing.T) {
	const log = "2025/01/01 00:00:00.000, 0, 50 %\n2025/01/01 00:00:01.000, 0, 51 %\n"
	importError(t, log, Options{}, "line 1: no header line: give the --query-gpu column list (--columns)")
	res := importString(t, log, Options{Columns: "timestamp,index,utilization.gpu"})
	if len(res.Samples) != 2 || value(t, res.Samples[1], 0, timeline.GPUUtil) != 51 || !hasNote(res, "no header line") {
		t.Errorf("%d samples, notes %q", len(res.Samples), res.Info.Notes)
	}
}

func TestNvidiaSMIThrottleAndMemory(t *testing.T) {
	const log = "timestamp, uuid, name, memory.total [MiB], memory.free [MiB], enforced.power.limit [W], clocks_event_reasons.active\n" +
		"2025/01/01 00:00:00.000, GPU-aaaa, NVIDIA H100, 81559 MiB, 1559 MiB, 700.00 W, 0x0000000000000004\n" +
		"2025/01/01 00:00:00.003, GPU-bbbb, NVIDIA H100, 81559 MiB, 81559 MiB, 700.00 W, 0x0000000000000001\n" +
		"2025/01/01 00:00:01.000, GPU-aaaa, NVIDIA H100, 81559 MiB, 1559 MiB, 700.00 W, [N/A]\n" +
		"2025/01/01 00:00:01.003, GPU-bbbb, NVIDIA H100, 81559 MiB, 81559 MiB, 700.00 W, 0x0000000000000060\n"
	res := importString(t, log, Options{})
	if len(res.Samples) != 2 || len(res.Info.GPUs) != 2 {
		t.Fatalf("%d samples, %d GPUs", len(res.Samples), len(res.Info.GPUs))
	}
	g := res.Info.GPUs[1]
	if g.UUID != "GPU-bbbb" || g.Name != "NVIDIA H100" || g.MemTotal != 81559*MiB || g.PowerLimit != 700 {
		t.Errorf("gpu1 info %+v", g)
	}
	s0, s1 := res.Samples[0], res.Samples[1]
	if used := value(t, s0, 0, timeline.GPUMemUsed); used != 80000*MiB {
		t.Errorf("memory used %v, want total - free", used)
	}
	if th := value(t, s0, 0, timeline.GPUThrottle); th != timeline.ThrottlePowerCap {
		t.Errorf("0x4 gave throttle %v", th)
	}
	if th := value(t, s0, 1, timeline.GPUThrottle); th != 0 {
		t.Errorf("GPU idle (0x1) gave throttle %v", th)
	}
	if th := value(t, s1, 0, timeline.GPUThrottle); !math.IsNaN(th) {
		t.Errorf("[N/A] gave throttle %v", th)
	}
	if th := value(t, s1, 1, timeline.GPUThrottle); th != timeline.ThrottleThermal {
		t.Errorf("0x60 gave throttle %v", th)
	}
}

func TestNvidiaSMIPerReasonColumnsAndDuplicates(t *testing.T) {
	const log = "index, power.draw [W], power.draw.instant [W], clocks_throttle_reasons.sw_power_cap, clocks_throttle_reasons.hw_slowdown, clocks_throttle_reasons.gpu_idle, fan.speed [%]\n" +
		"0, 300.00 W, 350.00 W, Active, Not Active, Not Active, 30 %\n" +
		"0, 310.00 W, 360.00 W, [N/A], [N/A], Active, 30 %\n"
	res := importString(t, log, Options{Start: jan1})
	s := res.Samples[0]
	if p := value(t, s, 0, timeline.GPUPower); p != 300 {
		t.Errorf("power %v: power.draw must win over power.draw.instant", p)
	}
	if th := value(t, s, 0, timeline.GPUThrottle); th != timeline.ThrottlePowerCap {
		t.Errorf("throttle %v", th)
	}
	if th := value(t, res.Samples[1], 0, timeline.GPUThrottle); !math.IsNaN(th) {
		t.Errorf("all reasons [N/A]: throttle %v", th)
	}
	if !hasNote(res, "columns not imported (gputop has no metric for them): power.draw.instant [W], clocks_throttle_reasons.gpu_idle, fan.speed [%]") {
		t.Errorf("notes %q", res.Info.Notes)
	}
	if !res.Samples[1].At.Equal(jan1.Add(time.Second)) {
		t.Errorf("untimed rows at %v", res.Samples[1].At)
	}
}

func TestDmonWithDateAndTime(t *testing.T) {
	const log = "#Date       Time        gpu     fb   bar1  rxpci  txpci  pviol  tviol\n" +
		"#YYYYMMDD   HH:MM:SS    Idx     MB     MB   MB/s   MB/s      %   bool\n" +
		" 20240104   13:54:35      0    239      3      5     10      0      0\n" +
		" 20240104   13:54:35      1    100      3      -      -     12      0\n" +
		"\n" +
		" 20240104   13:54:36      0     74     10    217    677      0      1\n" +
		" 20240104   13:54:36      1    100      3      0      0      0      0\n"
	res := importString(t, log, Options{})
	if len(res.Samples) != 2 || len(res.Info.GPUs) != 2 || res.Info.Interval != time.Second {
		t.Fatalf("%d samples, %d GPUs, %v", len(res.Samples), len(res.Info.GPUs), res.Info.Interval)
	}
	s0, s1 := res.Samples[0], res.Samples[1]
	if !s0.At.Equal(time.Date(2024, 1, 4, 13, 54, 35, 0, time.UTC)) || !hasNote(res, "no time zone") {
		t.Errorf("first sample at %v, notes %q", s0.At, res.Info.Notes)
	}
	if fb, rx := value(t, s0, 0, timeline.GPUMemUsed), value(t, s1, 0, timeline.GPUPCIeRx); fb != 239*MiB || rx != 217*MiB {
		t.Errorf("fb %v rx %v", fb, rx)
	}
	if rx := value(t, s0, 1, timeline.GPUPCIeRx); !math.IsNaN(rx) {
		t.Errorf("'-' read as %v", rx)
	}
	if th := value(t, s0, 1, timeline.GPUThrottle); th != timeline.ThrottlePowerCap {
		t.Errorf("pviol 12 gave throttle %v", th)
	}
	if th := value(t, s1, 0, timeline.GPUThrottle); th != timeline.ThrottleSWThermal {
		t.Errorf("tviol 1 gave throttle %v", th)
	}
}

func TestDmonTimeOfDayCrossesMidnight(t *testing.T) {
	const log = "#Time        gpu    sm\n#HH:MM:SS    Idx     %\n23:59:59       0    16\n00:00:00       0    17\n00:00:01       0    18\n"
	res := importString(t, log, Options{Start: time.Date(2025, 3, 1, 23, 59, 0, 0, time.UTC)})
	want := []time.Time{
		time.Date(2025, 3, 1, 23, 59, 59, 0, time.UTC),
		time.Date(2025, 3, 2, 0, 0, 0, 0, time.UTC),
		time.Date(2025, 3, 2, 0, 0, 1, 0, time.UTC),
	}
	for i, w := range want {
		if !res.Samples[i].At.Equal(w) {
			t.Errorf("sample %d at %v, want %v", i, res.Samples[i].At, w)
		}
	}
	importError(t, log, Options{}, "times of day but no dates")
}

func TestDmonCSVFormatAndErrors(t *testing.T) {
	res := importString(t, "#gpu, pwr, gtemp, sm\n#Idx, W, C, %\n 0, 10, 52, 5\n 1, 11, 53, 6\n 0, 12, 54, 7\n 1, 13, 55, 8\n", Options{Start: jan1})
	if len(res.Samples) != 2 || value(t, res.Samples[1], 1, timeline.GPUPower) != 13 {
		t.Errorf("%d samples: %v", len(res.Samples), res.Samples)
	}
	importError(t, "# gpu pwr\n    0  10\n", Options{}, "no timestamps: give the time it started (--start)")
	importError(t, "    0  10\n    0  11\n", Options{Format: Dmon, Start: jan1}, "no dmon header ('# gpu pwr ...') in the log")
	importError(t, "# gpu pwr\n    0  10  11\n", Options{Start: jan1}, "line 2: 3 fields, header has 2")
	importError(t, "# gpu pwr\n    0  hot\n", Options{Start: jan1}, `line 2: pwr: "hot" is not a number`)
	importError(t, "# gpu pwr\n 0 10\n#Time gpu pwr\n10:00:00 0 10\n", Options{Start: jan1}, "line 3: a new header that adds or drops the Date/Time columns")
}

func TestDCGMDmonTextWithMIG(t *testing.T) {
	const log = "# Entity  GRACT  SMACT  SMOCC  TENSO  DRAMA  FBUSD\n      Id\n" +
		"   GPU 0  0.429  0.429  0.364  0.011  0.400  1000\n" +
		"   GPU-I 0  0.000  0.000  0.000  0.000  0.000  N/A\n" +
		"   GPU-I 1  0.750  0.750  0.637  0.020  0.800  N/A\n" +
		"   GPU 0  0.430  0.429  0.364  0.011  0.400  1000\n" +
		"   GPU-I 0  0.000  0.000  0.000  0.000  0.000  N/A\n" +
		"   GPU-I 1  0.751  0.750  0.637  0.020  0.800  N/A\n"
	res := importString(t, log, Options{Start: jan1, Interval: 100 * time.Millisecond})
	if len(res.Samples) != 2 || len(res.Info.GPUs) != 3 || res.Info.Interval != 100*time.Millisecond {
		t.Fatalf("%d samples, %d GPUs, %v", len(res.Samples), len(res.Info.GPUs), res.Info.Interval)
	}
	if g := res.Info.GPUs; g[0].MIG || !g[1].MIG || !g[2].MIG || !g[0].GPM {
		t.Errorf("GPUs %+v", g)
	}
	s := res.Samples[0]
	if u, sm, te := value(t, s, 2, timeline.GPUUtil), value(t, s, 2, timeline.GPUSMActive), value(t, s, 2, timeline.GPUTensor); !near(u, 75) || !near(sm, 75) || !near(te, 2) {
		t.Errorf("GPU-I 1: util %v SM %v tensor %v", u, sm, te)
	}
	if !hasNote(res, "gpu2 is DCGM entity GPU-I 1 (a MIG instance)") || !hasNote(res, "GR_ENGINE_ACTIVE") {
		t.Errorf("notes %q", res.Info.Notes)
	}
}

func TestDCGMCSVVariants(t *testing.T) {
	// GPUTL (NVML's utilization) wins over GRACT; entities written "GPU n".
	res := importString(t, "Entity,GRACT,GPUTL,POWER,TimeStamp\nGPU 1,0.5,97,250.5,1700000000\nGPU 0,0.4,96,240,1700000000\n", Options{})
	s := res.Samples[0]
	if u, p := value(t, s, 1, timeline.GPUUtil), value(t, s, 0, timeline.GPUPower); u != 97 || p != 240 {
		t.Errorf("util %v power %v", u, p)
	}
	// Long field names, no entity column, microsecond times.
	res = importString(t, "timestamp,DCGM_FI_PROF_SM_ACTIVE,DCGM_FI_DEV_FB_USED\n1700000000000000,0.25,10\n1700000001000000,0.5,11\n", Options{})
	if len(res.Samples) != 2 || value(t, res.Samples[1], 0, timeline.GPUSMActive) != 50 || !res.Samples[0].At.Equal(time.Unix(1700000000, 0)) {
		t.Errorf("samples %v", res.Samples)
	}
}

func TestImportOptions(t *testing.T) {
	importError(t, "# gpu pwr\n 0 10\n", Options{Format: "csv"}, `unknown format "csv": expected auto, nvidia-smi-csv, dmon, dcgmi-csv`)
	importError(t, "# gpu pwr\n 0 10\n", Options{Interval: -time.Second}, "interval")
	// An explicit format is used even where detection would say otherwise.
	importError(t, "# gpu pwr\n 0 10\n", Options{Format: NvidiaSMICSV}, "line 1:")
	// No timestamps and no --start: the log ends at the file's time.
	mod := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	res := importString(t, "# gpu pwr\n 0 10\n 0 11\n 0 12\n", Options{ModTime: mod, Interval: 2 * time.Second})
	if first, last := res.Samples[0].At, res.Samples[2].At; !first.Equal(mod.Add(-4*time.Second)) || !last.Equal(mod) {
		t.Errorf("samples at %v..%v, want to end at %v", first, last, mod)
	}
}

func TestTimesOutOfOrder(t *testing.T) {
	const log = "timestamp, index, utilization.gpu [%]\n" +
		"2025/01/01 00:00:02, 0, 3 %\n2025/01/01 00:00:01, 0, 1 %\n2025/01/01 00:00:01, 0, 2 %\n2025/01/01 00:00:03, 0, 4 %\n"
	res := importString(t, log, Options{})
	if len(res.Samples) != 3 || value(t, res.Samples[0], 0, timeline.GPUUtil) != 1 {
		t.Errorf("%d samples %v", len(res.Samples), res.Samples)
	}
	if !hasNote(res, "times go backwards at line 3") || !hasNote(res, "1 sample dropped for having the same time as the one before, the first at line 4") {
		t.Errorf("notes %q", res.Info.Notes)
	}
}

func TestNoIndexBurstsTakeNamesByPosition(t *testing.T) {
	var b strings.Builder
	b.WriteString("timestamp, name, utilization.gpu [%]\n")
	for p := 0; p < 10; p++ {
		b.WriteString("2025/01/01 00:00:0" + string(rune('0'+p)) + ".001, NVIDIA A100, 10 %\n")
		b.WriteString("2025/01/01 00:00:0" + string(rune('0'+p)) + ".003, Tesla T4, 20 %\n")
	}
	// nvidia-smi restarted with the header written with other spacing:
	// the same columns, a new run, no note about changed columns.
	b.WriteString("timestamp,name,utilization.gpu [%]\n2025/01/01 00:00:10.001, NVIDIA A100, 11 %\n2025/01/01 00:00:10.003, Tesla T4, 21 %\n")
	res := importString(t, b.String(), Options{Start: jan1})
	if len(res.Samples) != 11 || len(res.Info.GPUs) != 2 {
		t.Fatalf("%d samples, %d GPUs", len(res.Samples), len(res.Info.GPUs))
	}
	if g := res.Info.GPUs; g[0].Name != "NVIDIA A100" || g[1].Name != "Tesla T4" {
		t.Errorf("GPUs %+v", g)
	}
	if u := value(t, res.Samples[10], 1, timeline.GPUUtil); u != 21 {
		t.Errorf("gpu1 after the restart: %v", u)
	}
	for _, n := range res.Info.Notes {
		if strings.Contains(n, "named both") || strings.Contains(n, "columns change") {
			t.Errorf("note %q", n)
		}
	}
	if !hasNote(res, "the start time given is not used") {
		t.Errorf("notes %q do not say --start was not used", res.Info.Notes)
	}
}

func TestDmonCommentIsNotAHeader(t *testing.T) {
	res := importString(t, "# gpu pwr sm\n# Idx W %\n 0 10 5\n# gpu is busy\n 0 11 6\n", Options{Start: jan1})
	if len(res.Samples) != 2 || value(t, res.Samples[1], 0, timeline.GPUUtil) != 6 {
		t.Errorf("%d samples", len(res.Samples))
	}
}
