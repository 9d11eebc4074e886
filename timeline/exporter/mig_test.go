package exporter

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/probes/demo"
	"github.com/gputop-dev/gputop/timeline"
)

// seriesLabels is the labels of each series of one name, gathered by a
// pedantic registry: a series twice, or labels it finds inconsistent, fail.
func seriesLabels(t *testing.T, x *Exporter, name string) []map[string]string {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(x)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			l := map[string]string{}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			out = append(out, l)
		}
	}
	return out
}

// The mig demo's slices go out as dcgm-exporter sends MIG instances: the
// physical GPU's gpu, UUID, bus id, device and model, with GPU_I_PROFILE
// and GPU_I_ID; the physical GPUs keep their six labels, and the slice's
// hint joins its series.
func TestMIGSeriesCarryDCGMLabels(t *testing.T) {
	clock := probes.NewFastClock(t0)
	node, err := demo.New("mig", 1, clock)
	if err != nil {
		t.Fatal(err)
	}
	sess := probes.OpenSession(probes.SessionConfig{Interval: time.Second, Machine: node.Machine(), Clock: clock})
	t.Cleanup(func() { _ = sess.Close() })
	x := New(Options{})
	for range 120 {
		observeNext(t, x, sess)
	}
	info := sess.Info()
	var parent timeline.GPUInfo
	giOf := map[string]string{} // profile to GPU instance id, as the scenario made them
	for _, g := range info.GPUs {
		if g.IsMIGInstance() {
			giOf[g.MIGProfile] = strconv.Itoa(g.MIGGPUInstance)
			parent = info.GPUs[g.MIGParent]
		}
	}
	if len(giOf) != 3 || parent.UUID == "" {
		t.Fatalf("the demo's slices: %v of %+v", giOf, parent)
	}

	slices, whole := 0, 0
	for _, l := range seriesLabels(t, x, "DCGM_FI_DEV_FB_USED") {
		profile, isMIG := l["GPU_I_PROFILE"]
		if !isMIG {
			whole++
			if len(l) != len(gpuLabels) || l["GPU_I_ID"] != "" {
				t.Errorf("a physical GPU's labels %v", l)
			}
			if n, _ := strconv.Atoi(l["gpu"]); n >= 8 {
				t.Errorf("a slice exported as a GPU of its own: %v", l)
			}
			continue
		}
		slices++
		want := map[string]string{"gpu": "0", "UUID": parent.UUID, "pci_bus_id": parent.PCIBusID, "device": "nvidia0",
			"modelName": parent.Name, "GPU_I_PROFILE": profile, "GPU_I_ID": giOf[profile], "Hostname": info.Host}
		if len(l) != len(want) {
			t.Errorf("slice labels %v, want %v", l, want)
		}
		for k, v := range want {
			if l[k] != v {
				t.Errorf("slice %s: label %s = %q, want %q", profile, k, l[k], v)
			}
		}
	}
	if slices != 3 || whole != 8 {
		t.Errorf("DCGM_FI_DEV_FB_USED for %d slices and %d GPUs, want 3 and 8", slices, whole)
	}
	// GPM per GPU instance: SM activity of each slice, none of GPU0 itself.
	sm := seriesLabels(t, x, "DCGM_FI_PROF_SM_ACTIVE")
	n := 0
	for _, l := range sm {
		if l["gpu"] == "0" {
			n++
			if l["GPU_I_ID"] == "" {
				t.Errorf("SM activity of MIG-enabled GPU0 itself: %v", l)
			}
		}
	}
	if n != 3 {
		t.Errorf("%d SM activity series on GPU0, want its 3 slices", n)
	}

	text := scrape(t, x.Handler(), "")
	hint := `gputop_hint_active{GPU_I_ID="` + giOf["1g.10gb"] + `",GPU_I_PROFILE="1g.10gb",gpu="0",id="gpu-imbalance"`
	if !strings.Contains(text, hint) {
		t.Errorf("no gpu-imbalance hint on the starved slice (%s):\n%s", hint, grepLines(text, "gputop_hint_active"))
	}
	if strings.Contains(text, `gpu="10"`) {
		t.Errorf("a slice's session index in a label:\n%s", grepLines(text, "DCGM_FI_DEV_FB_USED"))
	}
}

// Two compute instances of one GPU instance share its memory and GPM, as
// dcgm-exporter's one series per GPU instance does: one series, not two
// with the same labels (which would fail the scrape).
func TestMIGComputeInstancesOfOneGPUInstanceAreOneSeries(t *testing.T) {
	info := timeline.SourceInfo{Kind: timeline.Live, Host: "node7", GPUs: []timeline.GPUInfo{
		{Index: 0, Name: "NVIDIA A100-SXM4-40GB", UUID: "GPU-aaaa", MIG: true},
		{Index: 1, Name: "NVIDIA A100-SXM4-40GB MIG 1c.4g.20gb", UUID: "MIG-1", MIG: true, MIGProfile: "1c.4g.20gb",
			MIGParent: 0, MIGGPUInstance: 1, MIGComputeInstance: 0},
		{Index: 2, Name: "NVIDIA A100-SXM4-40GB MIG 1c.4g.20gb", UUID: "MIG-2", MIG: true, MIGProfile: "1c.4g.20gb",
			MIGParent: 0, MIGGPUInstance: 1, MIGComputeInstance: 1},
		{Index: 3, Name: "NVIDIA A100-SXM4-40GB MIG 3g.20gb", UUID: "MIG-3", MIG: true, MIGProfile: "3g.20gb",
			MIGParent: 0, MIGGPUInstance: 2, MIGComputeInstance: 0},
	}}
	s := timeline.Sample{At: t0}.WithMetrics([]timeline.Metric{
		gauge(timeline.GPUMemUsed, "gpu0", 30<<30),
		gauge(timeline.GPUMemUsed, "gpu1", 10<<30), gauge(timeline.GPUMemUsed, "gpu2", 10<<30),
		gauge(timeline.GPUMemUsed, "gpu3", 20<<30),
	})
	x := New(Options{})
	x.Observe(&s, info)
	got := map[string]string{}
	for _, l := range seriesLabels(t, x, "DCGM_FI_DEV_FB_USED") {
		got[l["gpu"]+"/"+l["GPU_I_ID"]] = l["UUID"]
	}
	if len(got) != 3 || got["0/"] != "GPU-aaaa" || got["0/1"] != "GPU-aaaa" || got["0/2"] != "GPU-aaaa" {
		t.Errorf("series %v, want GPU0 and GPU instances 1 and 2, all of GPU-aaaa", got)
	}
}
