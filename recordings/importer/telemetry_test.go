package importer

import (
	"bufio"
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// The real logs in ../shared/telemetry beside the repository (never copied into it),
// unchanged from public repositories; their README gives the numbers checked
// here.
func openTelemetry(t testing.TB, name string) *bytes.Reader {
	t.Helper()
	return bytes.NewReader(timelinetest.Telemetry(t, name))
}

func importTelemetry(t *testing.T, name string, opts Options) *Result {
	t.Helper()
	opts.Origin = name
	res, err := Import(openTelemetry(t, name), opts)
	if err != nil {
		t.Fatalf("import %s: %v", name, err)
	}
	checkResult(t, res)
	if res.Info.Kind != timeline.Imported || !strings.HasPrefix(res.Info.Origin, name+" (") {
		t.Errorf("source = %v %q, want an import from %s", res.Info.Kind, res.Info.Origin, name)
	}
	return res
}

// value returns metric m of GPU g in sample s, failing when it is absent.
func value(t *testing.T, s timeline.Sample, g int, m string) float64 {
	t.Helper()
	v, ok := s.Value(timeline.Key{Name: m, Device: timeline.GPUDevice(g)})
	if !ok {
		t.Fatalf("sample at %v has no %s for gpu%d", s.At, m, g)
	}
	return v
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// expect checks count, GPU count, duration (within [minDur, maxDur]) and
// interval of an import.
func expect(t *testing.T, res *Result, samples, gpus int, minDur, maxDur, interval time.Duration) {
	t.Helper()
	if len(res.Samples) != samples {
		t.Errorf("%d samples, want %d", len(res.Samples), samples)
	}
	if len(res.Info.GPUs) != gpus {
		t.Errorf("%d GPUs, want %d", len(res.Info.GPUs), gpus)
	}
	if d := duration(res); d < minDur || d > maxDur {
		t.Errorf("duration %v, want %v to %v", d, minDur, maxDur)
	}
	if res.Info.Interval != interval {
		t.Errorf("interval %v, want %v", res.Info.Interval, interval)
	}
}

func duration(res *Result) time.Duration {
	return res.Samples[len(res.Samples)-1].At.Sub(res.Samples[0].At)
}

func hasNote(res *Result, part string) bool {
	for _, n := range res.Info.Notes {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}

func TestTelemetryVLMLlava(t *testing.T) {
	res := importTelemetry(t, "vlm_llava_rtx4090_querygpu.csv", Options{})
	// 15:36:53.507 → 16:24:53.961, median spacing 1.003 s.
	expect(t, res, 2619, 1, 2880454*time.Millisecond, 2880454*time.Millisecond, 1003*time.Millisecond)
	if g := res.Info.GPUs[0]; g.Name != "NVIDIA GeForce RTX 4090" || !math.IsNaN(g.MemTotal) || !math.IsNaN(g.PowerLimit) {
		t.Errorf("GPU info %+v", g)
	}
	// First line: 1 %, 2 %, 1129 MiB, 33.09 W (units stripped).
	s := res.Samples[0]
	if value(t, s, 0, timeline.GPUUtil) != 1 || value(t, s, 0, timeline.GPUMemUtil) != 2 ||
		value(t, s, 0, timeline.GPUMemUsed) != 1129*MiB || value(t, s, 0, timeline.GPUPower) != 33.09 {
		t.Errorf("first sample %v", s.Metrics())
	}
	if want := time.Date(2026, 1, 3, 15, 36, 53, 507e6, time.UTC); !s.At.Equal(want) {
		t.Errorf("first sample at %v, want %v", s.At, want)
	}
	// The stalls: 86 gaps of 2-7.3 s, kept as they are.
	stalls, longest := 0, time.Duration(0)
	for i := 1; i < len(res.Samples); i++ {
		d := res.Samples[i].At.Sub(res.Samples[i-1].At)
		if d > 1900*time.Millisecond {
			stalls++
		}
		longest = max(longest, d)
	}
	if stalls != 86 || longest != 7311*time.Millisecond {
		t.Errorf("%d gaps over 1.9 s, longest %v; want 86 and 7.311s", stalls, longest)
	}
	// Last line: idle again, 1141 MiB and 34.15 W.
	last := res.Samples[len(res.Samples)-1]
	if value(t, last, 0, timeline.GPUMemUsed) != 1141*MiB || value(t, last, 0, timeline.GPUPower) != 34.15 {
		t.Errorf("last sample %v", last.Metrics())
	}
	if !hasNote(res, "no time zone") {
		t.Errorf("notes %q do not say the times were read as UTC", res.Info.Notes)
	}
}

// rawRows reads a no-index query CSV independently of the importer: the
// power and memory of every data line, in order.
func rawRows(t *testing.T, name string) (power, memMiB []float64) {
	t.Helper()
	sc := bufio.NewScanner(openTelemetry(t, name))
	sc.Scan() // header: timestamp, power.draw [W], utilization.gpu [%], memory.used [MiB]
	for sc.Scan() {
		f := strings.Split(sc.Text(), ", ")
		p, err1 := strconv.ParseFloat(strings.TrimSuffix(f[1], " W"), 64)
		m, err2 := strconv.ParseFloat(strings.TrimSuffix(f[3], " MiB"), 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("raw line %q", sc.Text())
		}
		power, memMiB = append(power, p), append(memMiB, m)
	}
	return power, memMiB
}

// checkRowOrder checks that data line i is GPU i mod gpus of sample i / gpus,
// as the README says of the no-index logs, including the passes that
// nvidia-smi stalled in the middle of.
func checkRowOrder(t *testing.T, res *Result, name string, gpus int) {
	t.Helper()
	power, mem := rawRows(t, name)
	if len(power) != len(res.Samples)*gpus {
		t.Fatalf("%d raw lines for %d samples of %d GPUs", len(power), len(res.Samples), gpus)
	}
	for i := range power {
		s := res.Samples[i/gpus]
		if p, m := value(t, s, i%gpus, timeline.GPUPower), value(t, s, i%gpus, timeline.GPUMemUsed); p != power[i] || m != mem[i]*MiB {
			t.Fatalf("data line %d: gpu%d has %v W %v B, want %v W %v MiB", i+2, i%gpus, p, m, power[i], mem[i])
		}
	}
}

func TestTelemetryLlama8bNoIndex(t *testing.T) {
	const name = "llama8b_8xh100_ckpt100_querygpu_100ms_noindex.csv"
	res := importTelemetry(t, name, Options{})
	// 6804 bursts of 8 rows, 00:34:45.155 → the last burst's first row at 00:46:22.
	expect(t, res, 6804, 8, 696*time.Second, 697*time.Second, 100*time.Millisecond)
	checkRowOrder(t, res, name, 8)
	if !hasNote(res, "8 GPUs told apart by their row's place") {
		t.Errorf("notes %q do not explain the GPU numbering", res.Info.Notes)
	}
	for _, m := range []string{timeline.GPUPower, timeline.GPUUtil, timeline.GPUMemUsed} {
		value(t, res.Samples[0], 7, m)
	}
}

func TestTelemetryGPT125mNoIndex(t *testing.T) {
	const name = "gpt125m_2xtitanx_gloo_querygpu_100ms_noindex.csv"
	res := importTelemetry(t, name, Options{})
	// 4093 bursts of 2 rows, 02:37:06.256 → 02:44:19.156 (7.2 min).
	expect(t, res, 4093, 2, 432900*time.Millisecond, 432900*time.Millisecond, 105*time.Millisecond)
	// Power has no unit under a "power.draw [W]" header: 17.65 and 16.29.
	if p0, p1 := value(t, res.Samples[0], 0, timeline.GPUPower), value(t, res.Samples[0], 1, timeline.GPUPower); p0 != 17.65 || p1 != 16.29 {
		t.Errorf("first powers %v %v, want 17.65 16.29", p0, p1)
	}
	checkRowOrder(t, res, name, 2)
}

func TestTelemetryUnetOptuna(t *testing.T) {
	res := importTelemetry(t, "unet_optuna_h200_querygpu_2s.csv", Options{})
	// 09:17:35.475 → 11:49:36.157 at 2 s.
	expect(t, res, 4561, 1, 9120682*time.Millisecond, 9120682*time.Millisecond, 2*time.Second)
	if res.Info.GPUs[0].Name != "NVIDIA H200" {
		t.Errorf("GPU name %q", res.Info.GPUs[0].Name)
	}
	s := res.Samples[0]
	if value(t, s, 0, timeline.GPUUtil) != 0 || value(t, s, 0, timeline.GPUMemUtil) != 0 || value(t, s, 0, timeline.GPUTemp) != 34 {
		t.Errorf("first sample %v", s.Metrics())
	}
	if _, ok := s.Value(timeline.Key{Name: timeline.GPUPower, Device: "gpu0"}); ok {
		t.Error("power imported from a log without a power column")
	}
}

func TestTelemetryNanoGPTCustomHeader(t *testing.T) {
	res := importTelemetry(t, "nanogpt_8xh100_colocation_querygpu_300ms.csv", Options{})
	// 4514 instants of 8 rows, 03:17:04.490 → 03:39:32.123, median 0.297 s.
	expect(t, res, 4514, 8, 1347633*time.Millisecond, 1347633*time.Millisecond, 297*time.Millisecond)
	// timestamp,gpu_index,temperature_C,utilization_gpu_percent,power_W:
	// "2025-09-24T03:17:04.490Z,1, 63, 100, 419.75".
	s := res.Samples[0]
	if value(t, s, 1, timeline.GPUTemp) != 63 || value(t, s, 1, timeline.GPUUtil) != 100 || value(t, s, 1, timeline.GPUPower) != 419.75 {
		t.Errorf("gpu1 first sample %v", s.Metrics())
	}
	if hasNote(res, "no time zone") {
		t.Error("ISO timestamps with Z were noted as zoneless")
	}
	longest := time.Duration(0)
	for i := 1; i < len(res.Samples); i++ {
		longest = max(longest, res.Samples[i].At.Sub(res.Samples[i-1].At))
	}
	if longest < 1500*time.Millisecond || longest > 1600*time.Millisecond {
		t.Errorf("longest gap %v, want the README's 1.57 s", longest)
	}
}

func TestTelemetryVGG16DmonOldLayout(t *testing.T) {
	start := time.Date(2018, 4, 16, 12, 0, 0, 0, time.UTC)
	res := importTelemetry(t, "vgg16_tf_v100_dmon.dmon", Options{Start: start})
	// 10551 rows at dmon's default 1 s; 480 header lines skipped.
	expect(t, res, 10551, 1, 10550*time.Second, 10550*time.Second, time.Second)
	if !res.Samples[0].At.Equal(start) || !hasNote(res, "times start at") {
		t.Errorf("first sample at %v, notes %q", res.Samples[0].At, res.Info.Notes)
	}
	// "    0   274    55    99   100     0     0   877  1522", the 5th row.
	s := res.Samples[4]
	if value(t, s, 0, timeline.GPUPower) != 274 || value(t, s, 0, timeline.GPUTemp) != 55 || value(t, s, 0, timeline.GPUUtil) != 99 ||
		value(t, s, 0, timeline.GPUMemUtil) != 100 || value(t, s, 0, timeline.GPUClockMem) != 877 || value(t, s, 0, timeline.GPUClockSM) != 1522 {
		t.Errorf("5th sample %v", s.Metrics())
	}
}

func TestTelemetryOllamaDmonNewLayout(t *testing.T) {
	mod := time.Date(2026, 2, 21, 10, 0, 0, 0, time.UTC)
	res := importTelemetry(t, "ollama_slm_rtx5070laptop_dmon.log", Options{ModTime: mod})
	expect(t, res, 63, 1, 62*time.Second, 62*time.Second, time.Second)
	// Without --start, the log ends at the file's modification time.
	if last := res.Samples[62].At; !last.Equal(mod) || !hasNote(res, "estimated") {
		t.Errorf("last sample at %v, want %v; notes %q", last, mod, res.Info.Notes)
	}
	// "    0     58     57      -     95     79 ... 9001   1470": gtemp is the
	// temperature; mtemp ("-") has no metric.
	s := res.Samples[10]
	if value(t, s, 0, timeline.GPUPower) != 58 || value(t, s, 0, timeline.GPUTemp) != 57 || value(t, s, 0, timeline.GPUUtil) != 95 ||
		value(t, s, 0, timeline.GPUClockMem) != 9001 || value(t, s, 0, timeline.GPUClockSM) != 1470 {
		t.Errorf("11th sample %v", s.Metrics())
	}
	if !hasNote(res, "dmon's sm") {
		t.Errorf("notes %q do not say what sm is", res.Info.Notes)
	}
}

func TestTelemetryResnet50DCGM(t *testing.T) {
	res := importTelemetry(t, "resnet50_train_a100mig_dcgmi_gract_1s.csv", Options{})
	// Epoch seconds 1661698242 → 1661702936 (78 min), one 209 s pause.
	expect(t, res, 4486, 1, 4694*time.Second, 4694*time.Second, time.Second)
	if !res.Samples[0].At.Equal(time.Unix(1661698242, 0)) {
		t.Errorf("first sample at %v", res.Samples[0].At)
	}
	// Last line "0,0.187,1914,1661702936": GRACT ratio as %, FBUSD MiB.
	last := res.Samples[len(res.Samples)-1]
	if u, m := value(t, last, 0, timeline.GPUUtil), value(t, last, 0, timeline.GPUMemUsed); !near(u, 18.7) || m != 1914*MiB {
		t.Errorf("last sample util %v mem %v", u, m)
	}
	// Line 1222 "0,0.000,N/A,1661699670": memory unknown, not 0.
	for _, s := range res.Samples {
		if s.At.Equal(time.Unix(1661699670, 0)) {
			if m := value(t, s, 0, timeline.GPUMemUsed); !math.IsNaN(m) {
				t.Errorf("N/A memory read as %v", m)
			}
		}
	}
	if !hasNote(res, "GR_ENGINE_ACTIVE") {
		t.Errorf("notes %q do not say what utilization is", res.Info.Notes)
	}
}

// Format (e) logs are not imported: the error names what was expected.
func TestTelemetryOtherFormatsRefused(t *testing.T) {
	for _, name := range []string{
		"alphazero_mcts_selfplay_gpu_monitor.log",
		"dqn_spaceinvaders_wandb-events.jsonl",
		"unet_optuna_h200_host_vmstat_1s.log",
	} {
		_, err := Import(openTelemetry(t, name), Options{Start: time.Unix(0, 0)})
		if err == nil {
			t.Errorf("%s imported", name)
			continue
		}
		for _, want := range []string{"unknown log format", "nvidia-smi-csv", "dmon", "dcgmi-csv"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q does not say %q", name, err, want)
			}
		}
	}
}
