package recordings

import (
	"fmt"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// clusterInfo is a description at the documented limits: 1,024 hosts of
// 16 GPUs, named as dcgm-exporter labels them.
func clusterInfo() timeline.SourceInfo {
	in := timeline.SourceInfo{Kind: timeline.Imported, Origin: "http://prom:9090 (prometheus)", Interval: 15 * time.Second}
	for h := range timeline.MaxHosts {
		in.Hosts = append(in.Hosts, timeline.HostInfo{Name: fmt.Sprintf("gpu-node-%04d.cluster.example.com", h), Driver: "550.54.15", CUDA: "12.4"})
		for g := range timeline.MaxGPUs / timeline.MaxHosts {
			i := len(in.GPUs)
			in.GPUs = append(in.GPUs, timeline.GPUInfo{Index: i, Name: "NVIDIA H100 80GB HBM3", UUID: fmt.Sprintf("GPU-%08x-1f4d-4a6e-9b0c-2d3e4f5a6b7c", i),
				PCIBusID: fmt.Sprintf("00000000:%02X:00.0", 0x18+g), Host: in.Hosts[h].Name, HostIndex: g, MemTotal: 85520809984, PowerLimit: 700, GPM: true})
		}
	}
	return in
}

// The header holds what the documentation says a session may have: 1,024
// hosts and 16,384 GPUs (4.3 MB of description; a 1 MiB cap refused an
// import of 600 hosts of 8). A file of it is written and read back, and
// its segments are not cut after every sample by the copy of the header
// each carries.
func TestHeaderHoldsTheDocumentedLimits(t *testing.T) {
	h := header(time.Second)
	h.Info = clusterInfo()
	var f memFile
	w, err := newWriter(&f, "cluster.gtr", h)
	if err != nil {
		t.Fatal(err)
	}
	// The many-host view's path too: the description again as an info
	// record, carried into each segment.
	if err := w.WriteInfo(h.Info); err != nil {
		t.Fatal(err)
	}
	const n = 20
	for i := range n {
		s := timeline.Sample{At: h.Start.Add(time.Duration(i) * time.Second)}.WithMetrics([]timeline.Metric{{Key: timeline.Key{Name: timeline.GPUUtil, Device: timeline.GPUDevice(i)}, Value: 50}})
		if err := w.Write(&s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(w.index.Segments) != 1 {
		t.Errorf("%d samples took %d segments", n, len(w.index.Segments))
	}
	r, err := openMem(f.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.Header().Info; len(got.GPUs) != timeline.MaxGPUs || len(got.Hosts) != timeline.MaxHosts {
		t.Errorf("read back %d GPUs on %d hosts", len(got.GPUs), len(got.Hosts))
	}
	ss, err := drain(r)
	if err != nil || len(ss) != n {
		t.Errorf("%d samples read back, %v", len(ss), err)
	}
}
