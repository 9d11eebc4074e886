package prom

import (
	"bufio"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeProm answers /api/v1/query_range as Prometheus does, from generated
// series: hosts × GPUs, every series in promMetrics, a point per step. It
// stands for Prometheus where a test needs sizes or faults the real one
// (e2e_prom_import_test.go in the repository root) cannot give quickly.
type fakeProm struct {
	hosts, gpus int
	// gap, if set, says a host's GPU series have no point at t (Unix ms).
	gap func(host int, t int64) bool
	// alerts are the series of ALERTS it has; alertsFail, if set, is the
	// HTTP status it answers their queries with, and Prometheus' error.
	alerts     []fakeAlert
	alertsFail int
	// queries counts the requests answered.
	queries atomic.Int64
	// maxPoints is the most points per series any query asked for.
	maxPoints atomic.Int64
}

func startFakeProm(t testing.TB, p *fakeProm) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(p) // httptest listens on 127.0.0.1
	t.Cleanup(srv.Close)
	return srv
}

// Prometheus' words for a query over its points limit (as saved in
// testdata/prometheus/error-too-many-points.json).
const promTooManyPoints = `{"status":"error","errorType":"bad_data","error":"exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)"}`

func (p *fakeProm) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/api/v1/query_range" {
		http.NotFound(w, r)
		return
	}
	p.queries.Add(1)
	q := r.URL.Query()
	start, err1 := strconv.ParseFloat(q.Get("start"), 64)
	end, err2 := strconv.ParseFloat(q.Get("end"), 64)
	step, err3 := strconv.ParseFloat(q.Get("step"), 64)
	if err1 != nil || err2 != nil || err3 != nil || step <= 0 || end < start {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"status":"error","errorType":"bad_data","error":"invalid parameter"}`)
		return
	}
	stepMs := int64(math.Round(step * 1000))
	from, to := int64(math.Round(start*1000)), int64(math.Round(end*1000))
	n := (to-from)/stepMs + 1
	for old := p.maxPoints.Load(); n > old && !p.maxPoints.CompareAndSwap(old, n); old = p.maxPoints.Load() {
	}
	if n > 11000 {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, promTooManyPoints)
		return
	}
	query := q.Get("query")
	name, matchers, _ := strings.Cut(query, "{")
	m := promIndex(name)
	if name == alertsSeries && p.alertsFail != 0 {
		w.WriteHeader(p.alertsFail)
		fmt.Fprint(w, `{"status":"error","errorType":"execution","error":"query processing would load too many samples into memory in query execution"}`)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	bw := bufio.NewWriterSize(w, 64<<10)
	defer bw.Flush()
	bw.WriteString(`{"status":"success","data":{"resultType":"matrix","result":[`)
	if name == alertsSeries {
		p.writeAlerts(bw, matchers, from, to, stepMs)
		bw.WriteString(`]}}`)
		return
	}
	// A dcgm-exporter: none of gputop serve's own health series.
	gputopOnly := name == promLostSeries || name == promLinksSeries || name == promLinksDownSeries
	if m < 0 || gputopOnly || strings.Contains(matchers, `job="none"`) {
		bw.WriteString(`]}}`)
		return
	}
	var buf []byte
	first := true
	for h := range p.hosts {
		for g := range p.gpus {
			if !first {
				bw.WriteByte(',')
			}
			first = false
			fmt.Fprintf(bw, `{"metric":{"__name__":%q,"Hostname":"node%02d","UUID":"GPU-%04d-%04d","device":"nvidia%d","gpu":"%d","instance":"10.0.0.%d:9400","job":"dcgm","modelName":"NVIDIA H100 80GB HBM3","pci_bus_id":"00000000:%02X:00.0"},"values":[`,
				name, h, h, g, g, g, h+1, 0x17+g)
			firstPoint := true
			for at := from; at <= to; at += stepMs {
				if p.gap != nil && p.gap(h, at) {
					continue
				}
				if !firstPoint {
					bw.WriteByte(',')
				}
				firstPoint = false
				buf = append(buf[:0], '[')
				buf = strconv.AppendFloat(buf, float64(at)/1000, 'f', -1, 64)
				buf = append(buf, `,"`...)
				buf = strconv.AppendFloat(buf, fakeValue(m, h, g, at), 'f', -1, 64)
				buf = append(buf, `"]`...)
				bw.Write(buf)
			}
			bw.WriteString(`]}`)
		}
	}
	bw.WriteString(`]}}`)
}

// fakeAlert is a series of ALERTS: its labels besides __name__, as JSON
// object members, and when it is firing (Unix ms).
type fakeAlert struct {
	labels string
	firing func(t int64) bool
}

// writeAlerts writes the series of ALERTS that match matchers (only
// alertstate="firing" is known) with their points in [from, to].
func (p *fakeProm) writeAlerts(bw *bufio.Writer, matchers string, from, to, stepMs int64) {
	first := true
	for _, a := range p.alerts {
		if matchers != `alertstate="firing"}` || !strings.Contains(a.labels, `"alertstate":"firing"`) {
			continue
		}
		var pts []string
		for at := from; at <= to; at += stepMs {
			if a.firing(at) {
				pts = append(pts, fmt.Sprintf(`[%s,"1"]`, strconv.FormatFloat(float64(at)/1000, 'f', -1, 64)))
			}
		}
		if len(pts) == 0 {
			continue // Prometheus leaves out a series without points
		}
		if !first {
			bw.WriteByte(',')
		}
		first = false
		fmt.Fprintf(bw, `{"metric":{"__name__":"ALERTS",%s},"values":[%s]}`, a.labels, strings.Join(pts, ","))
	}
}

// fakeValue is series m of host h's GPU g at t, in the exported unit.
func fakeValue(m, h, g int, t int64) float64 {
	sec := t / 1000
	wave := float64((sec/15+int64(7*g+13*h))%100) / 100 // 0-0.99, a step each 15 s
	switch promMetrics[m].series {
	case "DCGM_FI_DEV_FB_USED":
		return 40000 + math.Round(wave*30000)
	case "DCGM_FI_DEV_FB_TOTAL":
		return 81559
	case "DCGM_FI_DEV_FB_FREE":
		return 81559 - 40000 - math.Round(wave*30000)
	case "DCGM_FI_DEV_POWER_USAGE":
		return 100 + math.Round(wave*60000)/100
	case "DCGM_FI_DEV_ENFORCED_POWER_LIMIT":
		return 700
	case "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION":
		return float64(t) * 400 // 400 W, in mJ
	case "DCGM_FI_DEV_GPU_TEMP":
		return 40 + float64(g)
	case "DCGM_FI_DEV_SM_CLOCK":
		return 1980
	case "DCGM_FI_DEV_MEM_CLOCK":
		return 2619
	case "DCGM_FI_DEV_CLOCKS_EVENT_REASONS":
		if wave > 0.9 {
			return 0x4 // power cap
		}
		return 0
	case "DCGM_FI_PROF_SM_ACTIVE", "DCGM_FI_PROF_SM_OCCUPANCY", "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "DCGM_FI_PROF_DRAM_ACTIVE":
		return math.Round(wave*1000) / 1000
	case "DCGM_FI_PROF_PCIE_TX_BYTES", "DCGM_FI_PROF_PCIE_RX_BYTES":
		return math.Round(wave * 1e9)
	case "DCGM_FI_PROF_NVLINK_TX_BYTES", "DCGM_FI_PROF_NVLINK_RX_BYTES":
		return math.Round(wave * 1e11)
	case "gputop_pcie_link_gen", "gputop_pcie_link_gen_max":
		return 5
	case "gputop_pcie_link_width", "gputop_pcie_link_width_max":
		return 16
	case "DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",
		"DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", "gputop_retired_pages", "gputop_remapped_rows", "gputop_nvlink_errors":
		return 0 // a healthy GPU
	case "DCGM_FI_DEV_POWER_VIOLATION", "DCGM_FI_DEV_THERMAL_VIOLATION", "DCGM_FI_DEV_SYNC_BOOST_VIOLATION",
		"DCGM_FI_DEV_BOARD_LIMIT_VIOLATION", "DCGM_FI_DEV_LOW_UTIL_VIOLATION", "DCGM_FI_DEV_RELIABILITY_VIOLATION":
		return float64(t) * 10 // µs: held back 1 % of the time
	default: // the utilisations, %
		return math.Round(wave * 100)
	}
}

// fakeStart is where the fake cluster's day begins.
var fakeStart = time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
