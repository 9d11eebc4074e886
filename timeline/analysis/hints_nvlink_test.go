package analysis

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// nvlink puts GPU i's NVLink as the probe records it: n links, those in
// down down, each carrying rate (bytes/s, both ways) but rates' overrides,
// and the erring links' counts (crc, replay, recovery).
func (t *htTick) nvlink(i, n int, down []int, rate float64, rates map[int]float64, errs map[int][3]float64) {
	var mask, downMask, errMask uint64
	for l := range n {
		mask |= 1 << l
	}
	for _, l := range down {
		downMask |= 1 << l
	}
	for l, e := range errs {
		if e[0]+e[1]+e[2] > 0 {
			errMask |= 1 << l
		}
	}
	t.gpu(i, timeline.GPUNVLinkLinks, float64(mask))
	t.gpu(i, timeline.GPUNVLinkDown, float64(downMask))
	t.gpu(i, timeline.GPUNVLinkErrLinks, float64(errMask))
	for l, e := range errs {
		k := timeline.NVLinks[l]
		t.gpu(i, k.CRC, e[0])
		t.gpu(i, k.Replay, e[1])
		t.gpu(i, k.Recovery, e[2])
	}
	for l := range n {
		r := rate
		if x, ok := rates[l]; ok {
			r = x
		}
		if downMask&(1<<l) != 0 {
			r = 0
		}
		t.gpu(i, timeline.NVLinks[l].Data, r)
	}
}

func TestLinkDegradedNVLink(t *testing.T) {
	const busy = 7e9 // a link's share of a DDP step's collectives, both ways
	// healthy is eight busy GPUs with eighteen links each, GPU g's as
	// given (down links, rates, errors), the others' all well.
	with := func(t *htTick, g int, down []int, rates map[int]float64, errs map[int][3]float64) {
		htHealthy(t)
		htEvery8(func(i int) {
			if i == g {
				t.nvlink(i, 18, down, busy, rates, errs)
			} else {
				t.nvlink(i, 18, nil, busy, nil, nil)
			}
		})
	}
	healthy := func(t *htTick) { with(t, -1, nil, nil, nil) }
	cases := []struct {
		name   string
		script func(t *htTick)
		want   string // an episode's evidence starts with it; "" for no hint
	}{
		{"healthy links", healthy, ""},
		{"a link down while its peers are up", func(t *htTick) {
			if t.sec >= 60 {
				with(t, 3, []int{7}, nil, nil)
			} else {
				healthy(t)
			}
		}, "GPU3 NVLink 7 down while its 17 peers are up, 3m59s of 4m59s working"},
		{"a link down on an idle GPU", func(t *htTick) {
			htEvery8(func(i int) {
				t.h100(i, 0, 0, 70, 0)
				t.nvlink(i, 18, []int{7 * b2i(i == 3)}[:b2i(i == 3)], 0, nil, nil)
			})
		}, ""},
		{"a link down for a few seconds", func(t *htTick) {
			if t.sec >= 60 && t.sec < 65 {
				with(t, 3, []int{7}, nil, nil)
			} else {
				healthy(t)
			}
		}, ""},
		{"CRC errors counting on a link", func(t *htTick) {
			crc := float64(min(max(t.sec-100, 0), 30) * 40)
			with(t, 3, nil, nil, map[int][3]float64{7: {crc, crc / 10, 0}})
		}, "GPU3 NVLink 7: 1200 CRC errors, 120 replays in 30s"},
		{"a recovery", func(t *htTick) {
			with(t, 3, nil, nil, map[int][3]float64{7: {0, 0, float64(b2i(t.sec >= 100))}})
		}, "GPU3 NVLink 7: 1 recovery in 1s"},
		{"a stray CRC error or two", func(t *htTick) {
			with(t, 3, nil, nil, map[int][3]float64{7: {float64(b2i(t.sec >= 100) + b2i(t.sec > 200)), 0, 0}})
		}, ""},
		// Errors counted before the session, standing still: nothing new.
		{"old errors that do not grow", func(t *htTick) {
			with(t, 3, nil, nil, map[int][3]float64{7: {5000, 40, 2}})
		}, ""},
		{"a link carrying a tenth of its peers' traffic", func(t *htTick) {
			with(t, 5, nil, map[int]float64{11: busy / 10}, nil)
		}, "GPU5 NVLink 11 carries under a quarter of its peers' traffic while NVLink is busy, 4m59s of 4m59s"},
		// Idle NVLink (a job that does not communicate): no busiest link to
		// measure against, and no finding.
		{"NVLink idle, one link idler", func(t *htTick) {
			htHealthy(t)
			htEvery8(func(i int) { t.nvlink(i, 18, nil, 1e8, map[int]float64{11: 0}, nil) })
		}, ""},
		// A PCIe-only GPU records no links.
		{"no NVLink", htHealthy, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := htFind(htRun(300, tc.script), timeline.HintLinkDegraded)
			if tc.want == "" {
				if len(got) > 0 {
					t.Errorf("unexpected hint: %s", got[0].Evidence)
				}
				return
			}
			if len(got) == 0 {
				t.Fatalf("no hint, want %q", tc.want)
			}
			var evs []string
			for _, ep := range got[0].Episodes {
				evs = append(evs, ep.Evidence)
				if strings.HasPrefix(ep.Evidence, tc.want) {
					if got[0].Severity != timeline.Warning {
						t.Errorf("severity %v", got[0].Severity)
					}
					return
				}
			}
			t.Errorf("episodes %q, want one %q", evs, tc.want)
		})
	}
}

// BenchmarkEngineNVLink is a tick of BenchmarkEngine's hour where each of
// the eight GPUs also has eighteen NVLink links: the added cost of logging
// their masks and rates (Add) and of judging them (Hints).
func BenchmarkEngineNVLink(b *testing.B) {
	for _, links := range []bool{false, true} {
		name := "without"
		if links {
			name = "with"
		}
		b.Run(name, func(b *testing.B) {
			e := NewEngine(timeline.SourceInfo{Interval: time.Second})
			t := &htTick{}
			sample := func(sec int) timeline.Sample {
				s := htBenchSample(t, sec)
				if links {
					t.m = s.Metrics()
					htEvery8(func(i int) { t.nvlink(i, 18, nil, 7e9, nil, nil) })
					s.SetMetrics(t.m)
				}
				return s
			}
			for sec := range 3600 {
				s := sample(sec)
				e.Add(&s)
				if sec%60 == 0 {
					e.Hints(s.At)
				}
			}
			sec := 3600
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				s := sample(sec)
				sec++
				e.Add(&s)
				e.Hints(s.At)
			}
		})
	}
}

// A GPU's NVLink log lets go of the runs before the columns the Engine
// still holds, and says nothing of the columns before them: the runs that
// end by then go, the one that spans it starts there.
func TestNVLinkLogLetsGoOfRunsWithTheColumns(t *testing.T) {
	a, b, c := nvlCol{links: 18}, nvlCol{links: 18, busy: true}, nvlCol{links: 18, down: 1, known: true}
	type run struct {
		lo, hi int
		c      nvlCol
	}
	for _, tt := range []struct {
		from int
		want []run
	}{
		{0, []run{{0, 100, a}, {100, 300, b}, {300, 600, c}, {600, 601, a}}},
		{100, []run{{100, 300, b}, {300, 600, c}, {600, 601, a}}},
		{200, []run{{200, 300, b}, {300, 600, c}, {600, 601, a}}},
		{600, []run{{600, 601, a}}},
	} {
		lg := &nvlinkLog{runs: []nvlRun{{0, a}, {100, b}, {300, c}}, col: 600, cur: a}
		lg.release(tt.from)
		var got []run
		lg.each(1000, func(lo, hi int, c nvlCol) { got = append(got, run{lo, hi, c}) })
		if !slices.Equal(got, tt.want) {
			t.Errorf("let go before %d: runs %v, want %v", tt.from, got, tt.want)
		}
	}
}
