package prom

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gputop-dev/gputop/timeline"
)

// The real Prometheus' answers of `gputop serve --demo=mig` (GPU0 split
// into three slices, dcgm-exporter's GPU_I_PROFILE and GPU_I_ID labels):
// each slice becomes a GPU of the session after the whole GPUs, a MIG
// instance of GPU0 with its profile and GPU instance id, its figures its
// own, not merged into GPU0's.
func TestReadPrometheusMIGSlices(t *testing.T) {
	res, err := Read(bytes.NewReader(readPromTestdata(t, "mig-slices.json")), "mig-slices.json")
	if err != nil {
		t.Fatal(err)
	}
	samples := collect(t, res)
	gpus := res.Info.GPUs
	if len(gpus) != 5 || len(res.Info.Hosts) != 0 || res.Info.Host != "node-mig" {
		t.Fatalf("host %q (%d hosts), GPUs %+v", res.Info.Host, len(res.Info.Hosts), gpus)
	}
	if g := gpus[0]; g.Index != 0 || !g.MIG || g.IsMIGInstance() || g.Name != "NVIDIA H100 80GB HBM3" || g.UUID == "" {
		t.Errorf("GPU0: %+v", g)
	}
	if g := gpus[1]; g.Index != 1 || g.MIG || g.IsMIGInstance() {
		t.Errorf("GPU1: %+v", g)
	}
	const gib = 1 << 30
	for k, want := range []struct {
		profile string
		gi      int
		mem     float64
	}{{"3g.40gb", 2, 40 * gib}, {"2g.20gb", 3, 20 * gib}, {"1g.10gb", 9, 10 * gib}} {
		g := gpus[2+k]
		if g.Index != 2+k || !g.IsMIGInstance() || !g.MIG || g.MIGProfile != want.profile || g.MIGParent != 0 ||
			g.MIGGPUInstance != want.gi || g.MemTotal != want.mem || !g.GPM || g.UUID != "" ||
			g.Name != "NVIDIA H100 80GB HBM3 MIG "+want.profile || g.PCIBusID != gpus[0].PCIBusID {
			t.Errorf("slice %d: %+v", k, g)
		}
	}
	for _, n := range res.Info.Notes {
		if strings.Contains(n, "MIG") {
			t.Errorf("note %q", n)
		}
	}
	// Each slice's own memory and SM activity; GPU0 keeps its own memory
	// and power, and has no SM activity (GPM is per instance on MIG).
	last := samples[len(samples)-1]
	for dev, want := range map[string]float64{"gpu2": 34 * gib, "gpu3": 11 * gib, "gpu4": 9 * gib} {
		if v, ok := promValue(last, timeline.GPUMemUsed, dev); !ok || math.Abs(v-want) > gib {
			t.Errorf("%s memory used %v (%v), want about %v", dev, v, ok, want)
		}
	}
	busy, _ := promValue(last, timeline.GPUSMActive, "gpu2")
	starved, ok := promValue(last, timeline.GPUSMActive, "gpu4")
	if !ok || busy < 60 || starved > 20 {
		t.Errorf("SM activity: 3g.40gb %v, 1g.10gb %v (%v)", busy, starved, ok)
	}
	if _, ok := promValue(last, timeline.GPUSMActive, "gpu0"); ok {
		t.Error("GPU0 has SM activity of its own")
	}
	if v, ok := promValue(last, timeline.GPUMemUsed, "gpu0"); !ok || v < 50*gib {
		t.Errorf("GPU0's memory used %v (%v), want its slices' together, 54 GiB", v, ok)
	}
}

// promMIGAnswer is one query_range answer of DCGM_FI_DEV_FB_USED with the
// given series, each "host gpu gi profile" (gi "-" for a whole GPU).
func promMIGAnswer(series ...string) string {
	var parts []string
	for _, s := range series {
		f := strings.Fields(s)
		labels := fmt.Sprintf(`"__name__":"DCGM_FI_DEV_FB_USED","Hostname":%q,"gpu":%q,"modelName":"NVIDIA A100-SXM4-80GB","UUID":"GPU-%s-%s"`,
			f[0], f[1], f[0], f[1])
		if f[2] != "-" {
			labels += fmt.Sprintf(`,"GPU_I_ID":%q`, f[2])
			if len(f) > 3 {
				labels += fmt.Sprintf(`,"GPU_I_PROFILE":%q`, f[3])
			}
		}
		parts = append(parts, `{"metric":{`+labels+`},"values":[[1795594285,"1024"],[1795594286,"2048"]]}`)
	}
	return `{"status":"success","data":{"resultType":"matrix","result":[` + strings.Join(parts, ",") + `]}}`
}

// Among several hosts, each host's slices follow its whole GPUs and are
// numbered on their host after them; a slice whose GPU has no series of
// its own still has its GPU; a GPU_I_ID that is no number is left out,
// said in a note; no profile names the slice by its id.
func TestReadPrometheusMIGSlicesOnSeveralHosts(t *testing.T) {
	answer := promMIGAnswer("node-a 0 - -", "node-a 1 - -", "node-a 1 13 1g.10gb", "node-a 1 1 4g.40gb",
		"node-b 0 7", "node-b 0 x 1g.10gb", "node-b 1 - -")
	res, err := Read(strings.NewReader(answer), "answer.json")
	if err != nil {
		t.Fatal(err)
	}
	collect(t, res)
	var got []string
	for _, g := range res.Info.GPUs {
		s := fmt.Sprintf("%d %s:%d", g.Index, g.Host, g.HostIndex)
		if g.IsMIGInstance() {
			s += fmt.Sprintf(" %s of %d gi %d", g.MIGProfile, g.MIGParent, g.MIGGPUInstance)
		} else if g.MIG {
			s += " MIG"
		}
		got = append(got, s)
	}
	want := []string{
		"0 node-a:0", "1 node-a:1 MIG", "2 node-a:2 4g.40gb of 1 gi 1", "3 node-a:3 1g.10gb of 1 gi 13",
		"4 node-b:0 MIG", "5 node-b:1", "6 node-b:2 gi7 of 4 gi 7",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("GPUs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !hasPromNote(res, "1 series of MIG instances whose GPU_I_ID is not a number left out") {
		t.Errorf("notes %q", res.Info.Notes)
	}
}

func hasPromNote(res *Result, part string) bool {
	for _, n := range res.Info.Notes {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}
