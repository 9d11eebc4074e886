package prom

import (
	"slices"
	"strings"
	"testing"

	"github.com/gputop-dev/gputop/timeline"
)

// A Prometheus answer's absurd points are left out, each metric's with
// its note, as a log's are (TestAbsurdValuesLeftOutByEveryImporter).
func TestPrometheusAbsurdValuesLeftOut(t *testing.T) {
	powerNote := "1 power reading above 10 kW left out"
	utilNote := timeline.OutOfRange{Name: timeline.GPUUtil, Below: 1, Above: 1, Range: timeline.Range{Min: 0, Max: 100}}.String()
	const answer = `{"status":"success","data":{"resultType":"matrix","result":[
{"metric":{"__name__":"DCGM_FI_DEV_POWER_USAGE","gpu":"0"},"values":[[1735689600,"300.5"],[1735689601,"1e19"],[1735689602,"301.5"]]},
{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0"},"values":[[1735689600,"50"],[1735689601,"-5"],[1735689602,"1e9"]]},
{"metric":{"__name__":"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION","gpu":"0"},"values":[[1735689600,"1000"],[1735689601,"-1"],[1735689602,"2000"]]},
{"metric":{"__name__":"DCGM_FI_DEV_CLOCKS_EVENT_REASONS","gpu":"0"},"values":[[1735689600,"4"],[1735689601,"-4"],[1735689602,"1e300"]]},
{"metric":{"__name__":"DCGM_FI_DEV_GPU_TEMP","gpu":"0"},"values":[[1735689600,"60"],[1735689601,"61"],[1735689602,"62"]]}]}}`
	res, err := Read(strings.NewReader(answer), "absurd.json")
	if err != nil {
		t.Fatal(err)
	}
	samples := collect(t, res)
	if len(samples) != 3 {
		t.Fatalf("%d samples, want 3", len(samples))
	}
	for _, m := range []string{timeline.GPUPower, timeline.GPUUtil, timeline.GPUEnergy, timeline.GPUThrottle} {
		if v, ok := promValue(samples[1], m, "gpu0"); ok {
			t.Errorf("%s = %v at the absurd point, want it left out", m, v)
		}
	}
	for _, n := range []string{powerNote, utilNote, "1 gpu.energy reading below 0 left out",
		timeline.OutOfRange{Name: timeline.GPUThrottle, Below: 1, Above: 1, Range: timeline.Range{Min: 0, Max: 1 << 53}}.String()} {
		if !slices.Contains(res.Info.Notes, n) {
			t.Errorf("no note %q in %q", n, res.Info.Notes)
		}
	}
}

// Points more than timeline.MaxSampleGap after the one before are left
// out at import, with everything after them, and a note says so
// (TestJumpsLeftOutAtImport).
func TestPrometheusJumpsLeftOut(t *testing.T) {
	const answer = `{"status":"success","data":{"resultType":"matrix","result":[
{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0"},"values":[[1735689600,"50"],[1735689615,"51"],[6735689600,"52"],[6735689615,"53"]]}]}}`
	pres, err := Read(strings.NewReader(answer), "jump.json")
	if err != nil {
		t.Fatal(err)
	}
	if samples := collect(t, pres); len(samples) != 2 || !strings.Contains(strings.Join(pres.Info.Notes, "|"), "2 samples from 2183-") {
		t.Errorf("%d samples, notes %q", len(samples), pres.Info.Notes)
	}
}
