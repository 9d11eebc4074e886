package analysis_test

import (
	"testing"
	"time"

	"github.com/gputop-dev/gputop/probes/demo"
	"github.com/gputop-dev/gputop/timeline"
)

// No demo scenario and no real log trips frozen-telemetry: a demo's values
// may hold still (a MIG slice has no power of its own, a lost GPU no
// figures at all), and the real logs' steady stretches are an idle GPU in
// whole watts (vgg16's dmon, 3m43s) or one without power readings (unet's
// H200, 2m22s).
func TestFrozenTelemetryNeverOnDemosOrRealLogs(t *testing.T) {
	for _, scenario := range demo.Scenarios {
		t.Run(scenario, func(t *testing.T) {
			t.Parallel()
			samples, info := hxRecordDemo(t, scenario, 1, 10*time.Minute)
			e := hxReport(samples, info)
			for _, h := range e.Hints(e.Last()) {
				if h.ID == timeline.HintFrozenTelemetry {
					t.Errorf("%s: %s", scenario, h.Evidence)
				}
			}
		})
	}
	for _, name := range []string{"gpt125m_2xtitanx_gloo_querygpu_100ms_noindex.csv", "llama8b_8xh100_ckpt100_querygpu_100ms_noindex.csv",
		"nanogpt_8xh100_colocation_querygpu_300ms.csv", "ollama_slm_rtx5070laptop_dmon.log", "resnet50_train_a100mig_dcgmi_gract_1s.csv",
		"unet_optuna_h200_querygpu_2s.csv", "vgg16_tf_v100_dmon.dmon", "vlm_llava_rtx4090_querygpu.csv"} {
		samples, info := hxImportLog(t, name)
		e := hxReport(samples, info)
		for _, h := range e.Hints(e.Last()) {
			if h.ID == timeline.HintFrozenTelemetry {
				t.Errorf("%s: %s", name, h.Evidence)
			}
		}
	}
}
