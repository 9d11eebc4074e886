package importer

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// Absurd values through every importer: no panic, each left out (a gap:
// NaN in a log's sample, absent from a Prometheus one) and counted in one
// note per metric, in the Deriver's words.
func TestAbsurdValuesLeftOutByEveryImporter(t *testing.T) {
	powerNote := "1 power reading above 10 kW left out"
	utilNote := timeline.OutOfRange{Name: timeline.GPUUtil, Below: 1, Above: 1, Range: timeline.Range{Min: 0, Max: 100}}.String()
	for _, c := range []struct {
		name  string
		log   string
		gaps  []string // metrics of gpu0's second sample that must be gaps
		notes []string
	}{
		{
			name: "nvidia-smi CSV",
			log: "timestamp, index, power.draw [W], utilization.gpu [%], temperature.gpu, memory.used [MiB]\n" +
				"2025/01/01 00:00:00, 0, 300.5 W, 50 %, 60, 1000 MiB\n" +
				"2025/01/01 00:00:01, 0, 1e19 W, -5 %, 1e6, 1e30 MiB\n" +
				"2025/01/01 00:00:02, 0, 301.5 W, 1e9 %, 61, 1001 MiB\n",
			gaps:  []string{timeline.GPUPower, timeline.GPUUtil, timeline.GPUTemp, timeline.GPUMemUsed},
			notes: []string{powerNote, utilNote, "1 temp reading above 250°C left out", "1 memory reading above 8 PiB left out"},
		},
		{
			name: "dmon",
			log: "# gpu    pwr  gtemp     sm    mem     fb\n# Idx      W      C      %      %     MB\n" +
				"    0    300     60     50     10   1000\n" +
				"    0 99999999999  -99   -5    200   1000\n" +
				"    0    301     61   1e9     10   1001\n",
			gaps: []string{timeline.GPUPower, timeline.GPUTemp, timeline.GPUUtil, timeline.GPUMemUtil},
			notes: []string{powerNote, utilNote, "1 temp reading below -60°C left out",
				timeline.OutOfRange{Name: timeline.GPUMemUtil, Above: 1, Range: timeline.Range{Min: 0, Max: 100}}.String()},
		},
		{
			name: "DCGM CSV",
			log: "EntityId,GRACT,POWER,FBUSD,TimeStamp\n" +
				"0,0.5,300.5,1000,1735689600\n" +
				"0,5.0,-3,1e300,1735689601\n" +
				"0,-0.01,301.5,1001,1735689602\n",
			gaps:  []string{timeline.GPUUtil, timeline.GPUPower, timeline.GPUMemUsed},
			notes: []string{utilNote, "1 power reading below 0 W left out", "1 memory reading above 8 PiB left out"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := importString(t, c.log, Options{Start: jan1})
			if len(res.Samples) != 3 {
				t.Fatalf("%d samples, want 3", len(res.Samples))
			}
			for _, m := range c.gaps {
				if v := value(t, res.Samples[1], 0, m); !math.IsNaN(v) {
					t.Errorf("%s = %v, want a gap", m, v)
				}
			}
			if v := value(t, res.Samples[0], 0, c.gaps[0]); math.IsNaN(v) {
				t.Errorf("a good %s left out too", c.gaps[0])
			}
			for _, n := range c.notes {
				if !slices.Contains(res.Info.Notes, n) {
					t.Errorf("no note %q in %q", n, res.Info.Notes)
				}
			}
		})
	}
}

// Samples more than timeline.MaxSampleGap after the one before are left
// out at import, with everything after them, and a note says so.
func TestJumpsLeftOutAtImport(t *testing.T) {
	log := "timestamp, index, power.draw [W]\n" +
		"2025/01/01 00:00:00, 0, 300 W\n2025/01/01 00:00:01, 0, 301 W\n2025/01/01 00:00:02, 0, 302 W\n" +
		"2190/01/01 00:00:00, 0, 303 W\n2190/01/01 00:00:01, 0, 304 W\n"
	res := importString(t, log, Options{})
	want := "2 samples from 2190-01-01 00:00:00 on left out: more than a day after the last one before them (2025-01-01 00:00:02)"
	if len(res.Samples) != 3 || !slices.Contains(res.Info.Notes, want) {
		t.Errorf("%d samples, notes %q; want 3 and %q", len(res.Samples), res.Info.Notes, want)
	}
}

// Outside text is made safe: a GPU's name and a column's with escape
// sequences reach the recording and the notes without them.
func TestImportCleansOutsideText(t *testing.T) {
	log := "timestamp, index, name, power.draw [W], fan\x1b[K\x07\x1b]L;pwned\x07\n" +
		"2025/01/01 00:00:00, 0, \x1b[2JH100\x1b[0m, 300 W, 10\n"
	res := importString(t, log, Options{})
	if name := res.Info.GPUs[0].Name; name != "H100" {
		t.Errorf("GPU name %q, want H100", name)
	}
	for _, n := range res.Info.Notes {
		if strings.ContainsRune(n, 0x1b) || strings.ContainsRune(n, 0x07) {
			t.Errorf("note %q keeps control characters", n)
		}
	}
}

// A frozen stretch (every field of a GPU repeated to the last digit for
// minutes, after varying) is said in a note; readings that only look
// steady are not.
func TestFrozenTelemetryNote(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 14, 0, 0, 0, time.UTC)
	smi := func(secs int, row func(s int) string) string {
		var b strings.Builder
		b.WriteString("timestamp, index, utilization.gpu [%], power.draw [W], temperature.gpu, clocks.sm [MHz]\n")
		for s := range secs {
			b.WriteString(t0.Add(time.Duration(s)*time.Second).Format("2006/01/02 15:04:05.000") + ", 0, " + row(s) + "\n")
		}
		return b.String()
	}
	jitter := func(s int) string { // busy, power moving in its last digit
		return strings.Join([]string{"100 %", "699.9" + string(rune('0'+s%10)) + " W", "71", "1980 MHz"}, ", ")
	}
	frozen := func(from, to int, idle string) func(s int) string {
		return func(s int) string {
			if s >= from && s < to {
				return idle
			}
			return jitter(s)
		}
	}
	for _, c := range []struct {
		name, log, want string
	}{
		{"busy readings froze", smi(600, frozen(130, 530, "100 %, 699.95 W, 71, 1980 MHz")),
			"GPU0's readings froze at 14:02:10 for 6m40s: every field repeated to the last digit; treated as no data"},
		{"idle readings at the boost clock with watts to the hundredth froze", smi(600, frozen(130, 530, "0 %, 61.37 W, 40, 1980 MHz")),
			"GPU0's readings froze at 14:02:10 for 6m40s"},
		// regad_4xv100.csv: V100s left unused read 135 MHz and 42.06 W for
		// minutes. Parked at its idle clock, a GPU's draw holds still.
		{"parked at the idle clock, watts to the hundredth, holds still honestly", smi(600, frozen(130, 530, "0 %, 61.37 W, 40, 210 MHz")), ""},
		{"a freeze under two minutes is not one", smi(600, frozen(130, 245, "100 %, 699.95 W, 71, 1980 MHz")), ""},
		{"idle in whole watts holds still honestly", smi(600, frozen(130, 530, "0 %, 21 W, 40, 210 MHz")), ""},
		{"constant from the start (a mock)", smi(600, func(int) string { return "100 %, 699.95 W, 71, 1980 MHz" }), ""},
		{"no power: cannot tell", strings.ReplaceAll(smi(600, frozen(130, 530, "100 %, [N/A], 71, 1980 MHz")), "699.9", "[N/A]"), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := importString(t, c.log, Options{})
			var got []string
			for _, n := range res.Info.Notes {
				if strings.Contains(n, "froze") {
					got = append(got, n)
				}
			}
			switch {
			case c.want == "" && len(got) > 0:
				t.Errorf("notes %q, want no freeze", got)
			case c.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], c.want)):
				t.Errorf("notes %q, want one starting %q", got, c.want)
			}
		})
	}
}

// The real logs never trip the frozen note (../shared/telemetry: the
// longest identical run of a GPU with power readings is 4 s; vgg16's dmon
// at 21 W idle repeats for 3m43s and unet's H200 without power for 2m22s,
// and neither is a freeze).
func TestRealLogsHaveNoFrozenTelemetry(t *testing.T) {
	for _, name := range []string{"gpt125m_2xtitanx_gloo_querygpu_100ms_noindex.csv", "llama8b_8xh100_ckpt100_querygpu_100ms_noindex.csv",
		"nanogpt_8xh100_colocation_querygpu_300ms.csv", "ollama_slm_rtx5070laptop_dmon.log", "resnet50_train_a100mig_dcgmi_gract_1s.csv",
		"unet_optuna_h200_querygpu_2s.csv", "vgg16_tf_v100_dmon.dmon", "vlm_llava_rtx4090_querygpu.csv"} {
		res, err := Import(openTelemetry(t, name), Options{Start: jan1})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, n := range res.Info.Notes {
			if strings.Contains(n, "froze") {
				t.Errorf("%s: %s", name, n)
			}
		}
	}
}
