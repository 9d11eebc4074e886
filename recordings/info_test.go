package recordings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings/format"
	"github.com/gputop-dev/gputop/timeline"
)

// sameInfo compares two descriptions as the format keeps them: as JSON.
func sameInfo(a, b timeline.SourceInfo) bool {
	ja, erra := json.Marshal(format.SourceToJSON(a))
	jb, errb := json.Marshal(format.SourceToJSON(b))
	return erra == nil && errb == nil && bytes.Equal(ja, jb)
}

// grownInfo is the test header's description with n more GPUs and a note.
func grownInfo(n int) timeline.SourceInfo {
	in := header(time.Second).Info
	for i := range n {
		g := len(in.GPUs)
		in.GPUs = append(in.GPUs, timeline.GPUInfo{Index: g, Name: "NVIDIA A100", UUID: fmt.Sprintf("GPU-late-%d", i)})
	}
	in.Notes = append(in.Notes, fmt.Sprintf("%d GPUs found late", n))
	return in
}

// plannedInfo is a description to write right before sample before.
type plannedInfo struct {
	before int
	info   timeline.SourceInfo
}

// infoRecording is a recording in memory with info records.
type infoRecording struct {
	memRecording
	plan []plannedInfo
	// flushed[i] is the file's length once plan[i]'s record was flushed.
	flushed []int64
}

// writeWithInfo writes samples at 1 Hz with segments of span sample time,
// and the planned descriptions, in order of before.
func writeWithInfo(t *testing.T, ss []timeline.Sample, plan []plannedInfo, span time.Duration) infoRecording {
	t.Helper()
	var f memFile
	w, err := newWriter(&f, "mem.gtr", header(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	w.span = span
	rec := infoRecording{plan: plan}
	pending := 0 // planned records written, not yet flushed
	for i := range ss {
		for ; pending < len(plan) && plan[pending].before == i; pending++ {
			if err := w.WriteInfo(plan[pending].info); err != nil {
				t.Fatal(err)
			}
		}
		segments := len(w.index.Segments)
		if err := w.Write(&ss[i]); err != nil {
			t.Fatal(err)
		}
		rec.ends = append(rec.ends, w.out.n)
		for len(rec.flushed) < pending {
			if i > 0 && len(w.index.Segments) > segments { // flushed when the segment ended
				rec.flushed = append(rec.flushed, w.index.Segments[segments].Offset)
			} else {
				rec.flushed = append(rec.flushed, w.out.n)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, s := range w.index.Segments {
		rec.segments = append(rec.segments, s.Offset)
	}
	rec.data = f.Bytes()
	return rec
}

// at is the description current at sample i: the last one planned
// before it, else the header's.
func (rec infoRecording) at(i int) timeline.SourceInfo {
	info := header(time.Second).Info
	for _, p := range rec.plan {
		if p.before <= i {
			info = p.info
		}
	}
	return info
}

// infoPlan spreads descriptions over 45 samples in segments of 20: one
// before the first sample, one in the first segment, one right before the
// second segment (so in the first's last chunk, and carried), one in the
// second and one in the last.
func infoPlan(t *testing.T) ([]timeline.Sample, infoRecording) {
	ss := samples(45, 1)
	plan := []plannedInfo{{0, grownInfo(1)}, {8, grownInfo(2)}, {20, grownInfo(3)}, {31, grownInfo(4)}, {42, grownInfo(5)}}
	rec := writeWithInfo(t, ss, plan, 20*time.Second)
	if len(rec.segments) != 3 {
		t.Fatalf("want 3 segments, got %d", len(rec.segments))
	}
	return ss, rec
}

// Each sample comes with the description current with it, across
// segments; at the end the latest. The replay says the same, as a replay.
func TestInfoRoundTrip(t *testing.T) {
	ss, rec := infoPlan(t)
	r, err := openMem(rec.data)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !sameInfo(r.Info(), header(time.Second).Info) {
		t.Errorf("before any Read: %+v, want the header's", r.Info())
	}
	src := NewReplay(r)
	for i := range ss {
		s, err := src.Next(t.Context())
		if err != nil {
			t.Fatalf("sample %d: %v", i, err)
		}
		sameSample(t, i, ss[i], s)
		if want := rec.at(i); !sameInfo(r.Info(), want) {
			t.Fatalf("after sample %d: %d GPUs, want %d", i, len(r.Info().GPUs), len(want.GPUs))
		}
		got, want := src.Info(), rec.at(i)
		if len(got.GPUs) != len(want.GPUs) || got.Kind != timeline.Replay || got.Recorded != want.Kind || got.Origin != "mem.gtr" {
			t.Fatalf("replay after sample %d: %d GPUs, kind %v, recorded %v, origin %q", i, len(got.GPUs), got.Kind, got.Recorded, got.Origin)
		}
	}
	if _, err := src.Next(t.Context()); !errors.Is(err, io.EOF) {
		t.Fatalf("at the end: %v", err)
	}
	if !sameInfo(r.Info(), grownInfo(5)) {
		t.Errorf("at the end: %+v, want the latest", r.Info())
	}
}

// A description written after the last sample is read at the end.
func TestInfoAfterTheLastSample(t *testing.T) {
	ss := samples(3, 1)
	var f memFile
	w, err := newWriter(&f, "mem.gtr", header(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	for i := range ss {
		if err := w.Write(&ss[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteInfo(grownInfo(1)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := openMem(f.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for range ss {
		if _, err := r.Read(); err != nil {
			t.Fatal(err)
		}
		if !sameInfo(r.Info(), header(time.Second).Info) {
			t.Fatal("a description took effect before the sample it describes")
		}
	}
	if _, err := r.Read(); !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	if !sameInfo(r.Info(), grownInfo(1)) {
		t.Errorf("at the end: %+v, want the one written last", r.Info())
	}
}

// After a seek, the reader holds the description current at the sample
// it returns, read from that segment alone (the record carried into it).
func TestInfoAfterSeek(t *testing.T) {
	ss, rec := infoPlan(t)
	r, err := openMem(rec.data)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for at := ss[0].At.Add(-2 * time.Second); at.Before(ss[len(ss)-1].At.Add(2 * time.Second)); at = at.Add(250 * time.Millisecond) {
		if err := r.SeekTime(at); err != nil {
			t.Fatal(err)
		}
		s, err := r.Read()
		if errors.Is(err, io.EOF) {
			if !sameInfo(r.Info(), grownInfo(5)) {
				t.Fatalf("seek to %v, past the end: %+v, want the latest", at.Sub(ss[0].At), r.Info())
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		i := int(s.At.Sub(ss[0].At) / time.Second)
		if want := rec.at(i); !sameInfo(r.Info(), want) {
			t.Fatalf("seek to %v, sample %d: %d GPUs, want %d", at.Sub(ss[0].At), i, len(r.Info().GPUs), len(want.GPUs))
		}
	}
}

// A file cut at any byte of its last segment, inside an info record too,
// ends with the last description flushed before the cut.
func TestInfoTornTail(t *testing.T) {
	_, rec := infoPlan(t)
	for cut := rec.segments[len(rec.segments)-1]; cut < int64(len(rec.data)); cut++ {
		r, err := openMem(rec.data[:cut])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := drain(r); err == nil {
			t.Fatalf("cut at %d: read to a clean end", cut)
		}
		want := header(time.Second).Info
		for i, p := range rec.plan {
			if rec.flushed[i] <= cut {
				want = p.info
			}
		}
		if !sameInfo(r.Info(), want) {
			t.Fatalf("cut at %d: %d GPUs, want %d", cut, len(r.Info().GPUs), len(want.GPUs))
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// Damage that loses an info record loses it only until the next segment,
// which carries it.
func TestInfoAcrossDamage(t *testing.T) {
	ss, rec := infoPlan(t)
	data := append([]byte(nil), rec.data...)
	data[(rec.ends[29]+rec.ends[30])/2] ^= 0xff // before the record written before sample 31
	r, err := openMem(data)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for {
		s, err := r.Read()
		if err != nil {
			var de *DamagedError
			if !errors.As(err, &de) || len(de.Gaps) != 1 {
				t.Fatalf("end: %v, want a gap", err)
			}
			break
		}
		i := int(s.At.Sub(ss[0].At) / time.Second)
		if want := rec.at(i); !sameInfo(r.Info(), want) {
			t.Fatalf("sample %d: %d GPUs, want %d", i, len(r.Info().GPUs), len(want.GPUs))
		}
	}
}

func TestWriteInfoRefusals(t *testing.T) {
	ss := samples(2, 1)
	var f memFile
	w, err := newWriter(&f, "mem.gtr", header(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	huge := grownInfo(1)
	huge.Notes = []string{strings.Repeat("x", format.MaxHeaderBytes)}
	if err := w.WriteInfo(huge); !errors.Is(err, format.ErrInfoTooLarge) {
		t.Errorf("a description over 8 MiB: %v", err)
	}
	if err := w.Write(&ss[0]); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteInfo(huge); !errors.Is(err, format.ErrInfoTooLarge) || w.err != nil {
		t.Errorf("a description over 8 MiB: %v; the Writer's error: %v", err, w.err)
	}
	if err := w.Write(&ss[1]); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteInfo(grownInfo(1)); !errors.Is(err, errClosed) {
		t.Errorf("after Close: %v", err)
	}
	r, err := openMem(f.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got, err := drain(r); err != nil || len(got) != 2 {
		t.Fatalf("read back %d samples, %v", len(got), err)
	}
	if !sameInfo(r.Info(), header(time.Second).Info) {
		t.Errorf("the refused descriptions were recorded: %+v", r.Info())
	}

	// A Writer that failed says so again.
	head, err := format.AppendHeaderFrame(nil, header(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	w, err = newWriter(&fullFile{limit: len(head) + 10}, "full.gtr", header(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&ss[0]); err == nil {
		t.Fatal("writing to a full disk succeeded")
	}
	if err := w.WriteInfo(grownInfo(1)); err == nil || err != w.err {
		t.Errorf("after a write error: %v, want the Writer's error", err)
	}
}

// TestHostsRoundTrip: a session of several hosts (format 1.4) keeps each
// GPU's host, its index there and its bus id, and the hosts in their order.
func TestHostsRoundTrip(t *testing.T) {
	h := header(time.Second)
	h.Info.Host = ""
	h.Info.Hosts = []timeline.HostInfo{{Name: "node1", Driver: "550.54.15", CUDA: "12.4"},
		{Name: "node2", Notes: []string{"node2: no NVIDIA driver"}}}
	h.Info.GPUs = []timeline.GPUInfo{
		{Index: 0, Name: "NVIDIA H100", UUID: "GPU-a", Host: "node1", HostIndex: 0, PCIBusID: "00000000:17:00.0", MemTotal: math.NaN(), PowerLimit: 700},
		{Index: 1, Name: "NVIDIA H100", UUID: "GPU-b", Host: "node2", HostIndex: 3, MemTotal: 1 << 30, PowerLimit: math.NaN()},
	}
	var f memFile
	w, err := newWriter(&f, "hosts.gtr", h)
	if err != nil {
		t.Fatal(err)
	}
	s := timeline.Sample{At: h.Start}.WithMetrics([]timeline.Metric{
		{Key: timeline.Key{Name: timeline.HostCPU, Device: timeline.DeviceOnHost(timeline.HostDevice, "node2")}, Value: 12.5},
	})
	if err := w.Write(&s); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := openMem(f.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	got := r.Header().Info
	if !sameInfo(got, h.Info) || !got.MultiHost() || got.GPUs[1].OnHost() != 3 || got.GPUs[1].Host != "node2" {
		t.Errorf("hosts read back as %+v", got)
	}
	if g := got.GPUsOf("node2"); len(g) != 1 || g[0] != 1 {
		t.Errorf("GPUsOf(node2) = %v", g)
	}
	samples, err := drain(r)
	if err != nil || len(samples) != 1 {
		t.Fatalf("%d samples, %v", len(samples), err)
	}
	if v, ok := samples[0].Value(timeline.Key{Name: timeline.HostCPU, Device: "host@node2"}); !ok || v != 12.5 {
		t.Errorf("host@node2 CPU = %v %v", v, ok)
	}
}

// TestMIGInstancesRoundTrip: a MIG compute instance, listed as a GPU of its
// own after the physical ones, keeps its profile, parent and instance ids;
// and a description whose slices changed is a different description.
func TestMIGInstancesRoundTrip(t *testing.T) {
	h := header(time.Second)
	h.Info.GPUs = []timeline.GPUInfo{
		{Index: 0, Name: "NVIDIA H100 80GB HBM3", UUID: "GPU-a", MIG: true, MemTotal: 80 << 30, PowerLimit: 700},
		{Index: 1, Name: "NVIDIA H100 80GB HBM3 MIG 3g.40gb", UUID: "MIG-b", MIG: true, MemTotal: 40 << 30,
			PowerLimit: math.NaN(), MIGProfile: "3g.40gb", MIGParent: 0, MIGGPUInstance: 2, MIGComputeInstance: 0},
		{Index: 2, Name: "NVIDIA H100 80GB HBM3 MIG 1g.10gb", UUID: "MIG-c", MIG: true, MemTotal: 10 << 30,
			PowerLimit: math.NaN(), MIGProfile: "1g.10gb", MIGParent: 0, MIGGPUInstance: 9, MIGComputeInstance: 1},
	}
	var f memFile
	w, err := newWriter(&f, "mig.gtr", h)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := openMem(f.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	got := r.Header().Info
	if !sameInfo(got, h.Info) || !got.GPUs[2].IsMIGInstance() || got.GPUs[2].MIGGPUInstance != 9 ||
		got.GPUs[2].MIGComputeInstance != 1 || got.GPUs[0].IsMIGInstance() {
		t.Errorf("MIG instances read back as %+v", got.GPUs)
	}
	if !sameDescription(got, h.Info) {
		t.Error("the same description reads as different")
	}
	changed := h.Info
	changed.GPUs = slices.Clone(h.Info.GPUs)
	changed.GPUs[2].MIGProfile = "2g.20gb"
	if sameDescription(changed, h.Info) {
		t.Error("a changed MIG layout reads as the same description")
	}
}
