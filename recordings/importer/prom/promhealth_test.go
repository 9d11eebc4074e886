package prom

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gputop-dev/gputop/timeline"
)

// The real Prometheus' answers of a gputop serve --demo=faults (GPU1 Xid
// 48 then 79 and lost, GPU6 at PCIe x8 of x16, GPU7's NVLink 16 down)
// come back as the live probe records them: Xid markers of origin xid
// (not phases of the job), GPU1 lost from gputop_gpu_lost's first point,
// the PCIe link and the NVLink masks and counts.
func TestReadPrometheusFaultsAsTheProbeRecordsThem(t *testing.T) {
	res, err := Read(bytes.NewReader(readPromTestdata(t, "faults-one-host.json")), "faults.json")
	if err != nil {
		t.Fatal(err)
	}
	var markers []string
	lostFrom, lostSamples, samples := -1, 0, 0
	var width6, links7, down7, crc7 float64
	err = res.Each(func(s *timeline.Sample) error {
		for _, m := range s.Markers {
			markers = append(markers, fmt.Sprintf("%s (%s)", m.Text, m.Origin))
		}
		for _, p := range s.Probes {
			if p.Device == "gpu1" && p.State == timeline.ProbeLost {
				if lostFrom < 0 {
					lostFrom = samples
				}
				lostSamples++
			}
		}
		for _, m := range s.Metrics() {
			switch m.Key {
			case timeline.Key{Name: timeline.GPUPCIeWidth, Device: "gpu6"}:
				width6 = m.Value
			case timeline.Key{Name: timeline.GPUNVLinkLinks, Device: "gpu7"}:
				links7 = m.Value
			case timeline.Key{Name: timeline.GPUNVLinkDown, Device: "gpu7"}:
				down7 = m.Value
			case timeline.Key{Name: timeline.NVLinks[16].CRC, Device: "gpu7"}:
				crc7 = m.Value
			}
		}
		samples++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"GPU1 Xid 48: Double Bit ECC Error (xid)", "GPU1 Xid 79: GPU has fallen off the bus (xid)"}
	if !slices.Equal(markers, want) {
		t.Errorf("markers %q, want %q", markers, want)
	}
	// GPU1 fell off the bus 30 s after its Xid 48, on a 2 s step: lost
	// from then to the end.
	if lostFrom < 15 || lostFrom > 19 || lostFrom+lostSamples != samples {
		t.Errorf("GPU1 lost in %d samples from sample %d of %d", lostSamples, lostFrom, samples)
	}
	if width6 != 8 || links7 != 1<<18-1 || down7 != 1<<16 || crc7 != 1200 {
		t.Errorf("GPU6's PCIe width %v; GPU7's links %#x, down %#x, NVLink 16 CRC errors %v", width6, int(links7), int(down7), crc7)
	}
	for _, n := range res.Info.Notes {
		if strings.Contains(n, "Xid") {
			t.Errorf("note %q: gputop's markers had every Xid", n)
		}
	}
}

// A dcgm-exporter's only record of an Xid is its last Xid: a change to
// another code is an Xid at that point, one already held at the first
// point came before the range, and a note says what the gauge cannot tell.
func TestReadPrometheusXidFromTheLastXid(t *testing.T) {
	in := `{"status":"success","data":{"resultType":"matrix","result":[` +
		`{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0","Hostname":"n1"},"values":[[100,"90"],[115,"90"],[130,"90"],[145,"90"]]},` +
		`{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"1","Hostname":"n1"},"values":[[100,"90"],[115,"90"],[130,"90"],[145,"90"]]},` +
		`{"metric":{"__name__":"DCGM_FI_DEV_XID_ERRORS","gpu":"0","Hostname":"n1"},"values":[[100,"0"],[115,"48"],[130,"48"],[145,"79"]]},` +
		`{"metric":{"__name__":"DCGM_FI_DEV_XID_ERRORS","gpu":"1","Hostname":"n1"},"values":[[100,"13"],[115,"13"],[130,"13"],[145,"13"]]}]}}`
	res, err := Read(strings.NewReader(in), "dcgm.json")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range collect(t, res) {
		for _, m := range s.Markers {
			got = append(got, fmt.Sprintf("%s at %d (%s)", m.Text, s.At.Unix(), m.Origin))
		}
	}
	want := []string{"GPU0 Xid 48: Double Bit ECC Error at 115 (xid)", "GPU0 Xid 79: GPU has fallen off the bus at 145 (xid)"}
	if !slices.Equal(got, want) {
		t.Errorf("markers %q, want %q", got, want)
	}
	notes := strings.Join(res.Info.Notes, "\n")
	if !strings.Contains(notes, "GPU1 Xid 13 before the range") || !strings.Contains(notes, "the Xids of GPU0 are read from DCGM_FI_DEV_XID_ERRORS") {
		t.Errorf("notes %q", res.Info.Notes)
	}
}
