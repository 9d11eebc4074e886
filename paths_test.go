package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gputop-dev/gputop/probes/remote"
	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// The differential harness: every demo scenario through every path a user
// can take to the same GPUs, each path's story (its hints and figures, the
// GPUs named as their node numbers them) held to the story of the node
// recorded alone. What a path cannot know is said here, per path, in
// pathLimits: never skipped in silence.
//
// Paths and what each is:
//   - alone: gputop record --demo=S, then gputop report: the reference.
//   - report --to T: the report of the first T of the recording against the
//     report of a recording of only T (the demo is deterministic): what the
//     screen said at T, and what a session stopped at T says.
//   - hosts: the scenario as node2 of three hosts (the others train), each
//     host's recording streamed as `gputop stream` sends it, merged by the
//     --hosts viewer's own merge (probes/remote) on its own ticks, judged by
//     the pipeline's judge, recorded, and reported. Fake time (synctest), so
//     ten minutes take a second or two.
//   - export: gputop export --format csv, its utilisation read back as a
//     user's pandas would: the report's mean and idle share.
//
// Paths covered elsewhere, with the test that holds them: the screen at T
// against report --to T (ui's TestScreenSaysWhatTheReportSays), a
// Prometheus history imported back (the faults scenario's gpu-error, in
// e2e_prom_import_test.go, with a real Prometheus).

// pathScenarios are the demo scenarios every path plays, and how long.
var pathScenarios = []string{"training", "input-bound", "imbalance", "cpu-fallback", "throttle", "checkpoint", "mig", "faults"}

const pathLength = 6 * time.Minute

// storyHint is a hint as a path tells it: the GPUs as their node numbers
// them.
type storyHint struct {
	ID       string
	Severity string
	GPUs     []int
	Start    float64 // seconds from the node's first sample
}

func (h storyHint) String() string {
	return fmt.Sprintf("%s %s GPU%v from %.0fs", h.Severity, h.ID, h.GPUs, h.Start)
}

// storyGPU is a GPU's figures as a path tells them.
type storyGPU struct {
	UtilMean, Idle, Energy float64
}

// story is what one path says of one node.
type story struct {
	hints    []storyHint
	gpus     map[int]storyGPU // by the node's own GPU index
	idleUtil float64          // the utilisation under which a GPU is idle
}

// pathReport is the part of report --format json a story reads.
type pathReport struct {
	IdleUtil float64 `json:"idle_util"`
	GPUs     []struct {
		Index     int      `json:"index"`
		Host      string   `json:"host"`
		HostIndex *int     `json:"host_index"`
		Util      numStat  `json:"util"`
		IdleFrac  *float64 `json:"idle_fraction"`
		Energy    *float64 `json:"energy_j"`
	} `json:"gpus"`
	Hints []struct {
		ID       string  `json:"id"`
		Severity string  `json:"severity"`
		GPUs     []int   `json:"gpus"`
		Start    float64 `json:"start_s"`
	} `json:"hints"`
}

type numStat struct {
	Mean *float64 `json:"mean"`
}

func nanIfNil(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// storyOf reads host's part of a report (every GPU where host is ""): each
// GPU as its host numbers it, hints on host's GPUs alone, their starts from
// offset seconds into the report.
func storyOf(t *testing.T, out string, host string, offset float64) story {
	t.Helper()
	var r pathReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("report --format json: %v\n%.300s", err, out)
	}
	local := map[int]int{}
	s := story{gpus: map[int]storyGPU{}, idleUtil: r.IdleUtil}
	for _, g := range r.GPUs {
		if host != "" && g.Host != host {
			continue
		}
		k := g.Index
		if host != "" && g.HostIndex != nil {
			k = *g.HostIndex
		}
		local[g.Index] = k
		s.gpus[k] = storyGPU{UtilMean: nanIfNil(g.Util.Mean), Idle: nanIfNil(g.IdleFrac), Energy: nanIfNil(g.Energy)}
	}
	for _, h := range r.Hints {
		var gpus []int
		for _, idx := range h.GPUs {
			if k, ok := local[idx]; ok {
				gpus = append(gpus, k)
			}
		}
		if len(gpus) == 0 && (len(h.GPUs) > 0 || host != "") {
			continue // another host's, or a session-wide hint of hosts
		}
		slices.Sort(gpus)
		s.hints = append(s.hints, storyHint{ID: h.ID, Severity: h.Severity, GPUs: gpus, Start: h.Start - offset})
	}
	slices.SortFunc(s.hints, func(a, b storyHint) int { return strings.Compare(a.String(), b.String()) })
	return s
}

// pathLimit is what one path cannot know, or adds, of a scenario's story.
type pathLimit struct {
	// adds are hints only this path can give (the cross-host ones).
	adds []string
	// instead are hints of the node alone this path gives as others, by
	// the hints it may say instead, and why.
	instead map[string][]string
	why     string
	// anySeverity are hints whose severity rests on what the path lacks.
	anySeverity []string
	// startSlack is how far a hint's start may move, in seconds: a
	// merged session starts on the viewer's first tick.
	startSlack float64
	// figureSlack is how far a figure may move, relative.
	figureSlack float64
}

// hostRules are the hints that read the host's CPU.
var hostRules = []string{timeline.HintInputBound, timeline.HintHostSingleThread, timeline.HintIOWait}

var pathLimits = map[string]pathLimit{
	"report --to": {startSlack: 1, figureSlack: 1e-6},
	// The whole log knows when the reading after the cut came; the half
	// does not: the last reading's weight, and so the means, move a little.
	"report --to of a log": {startSlack: 2, figureSlack: 0.02},
	// report --to T reads whole seconds, as the screen at T does
	// (analysis.SamplesUntil): a log read every 50 ms and cut at 12.3 s is
	// read to 12 s, its half to its last reading; up to a second apart,
	// 5 % of the mean of a 15 s half of v100_lstm_dcgmi.csv.
	"report --to of a sub-second log": {startSlack: 2, figureSlack: 0.06},
	"hosts": {
		adds: []string{timeline.HintHostIdle, timeline.HintHostLate, timeline.HintStragglerHost, timeline.HintUnevenMemory},
		// A node idle among working nodes is host-idle, which says more
		// than the one-node hints it explains (hosts.Suppress): the GPUs
		// idle, and the others waiting on them.
		instead: map[string][]string{
			timeline.HintGPUIdle:        {timeline.HintHostIdle},
			timeline.HintGPUImbalance:   {timeline.HintHostIdle},
			timeline.HintLowUtilization: {timeline.HintHostIdle},
		},
		why:         "host-idle explains it: the node idles while the others work",
		startSlack:  3,
		figureSlack: 0.03,
	},
	// serve exports the GPUs under dcgm-exporter's names; the host's CPU
	// is node_exporter's, which the import does not read: the imported
	// history is judged without it, as an nvidia-smi log is. The import
	// is at a 2 s step of 1 s scrapes: means move by a few per cent.
	"prometheus": {
		instead: map[string][]string{
			timeline.HintInputBound:       {timeline.HintLowUtilization, timeline.HintMemoryHeadroom},
			timeline.HintHostSingleThread: {timeline.HintLowUtilization, timeline.HintMemoryHeadroom},
			timeline.HintIOWait:           {timeline.HintLowUtilization, timeline.HintMemoryHeadroom},
		},
		why:         "no host CPU in serve's series (node_exporter's): judged on the GPUs alone",
		anySeverity: []string{timeline.HintIdleMemoryHeld},
		startSlack:  4,
		figureSlack: 0.03,
	},
}

// compareStories reports where path's story of a scenario differs from
// the node's alone.
func compareStories(t *testing.T, path string, alone, got story) {
	t.Helper()
	lim := pathLimits[path]
	match := func(a, b storyHint) bool {
		return a.ID == b.ID && (a.Severity == b.Severity || slices.Contains(lim.anySeverity, a.ID)) &&
			slices.Equal(a.GPUs, b.GPUs) && math.Abs(a.Start-b.Start) <= lim.startSlack
	}
	says := func(ids []string) bool {
		return slices.ContainsFunc(got.hints, func(h storyHint) bool { return slices.Contains(ids, h.ID) })
	}
	for _, want := range alone.hints {
		if slices.ContainsFunc(got.hints, func(h storyHint) bool { return match(want, h) }) {
			continue
		}
		if ids, ok := lim.instead[want.ID]; ok && says(append(slices.Clone(ids), lim.adds...)) {
			t.Logf("%s: %s not said: %s", path, want, lim.why)
			continue
		}
		t.Errorf("%s: lost %s\n alone: %v\n %s: %v", path, want, alone.hints, path, got.hints)
	}
	for _, h := range got.hints {
		if slices.ContainsFunc(alone.hints, func(want storyHint) bool { return match(want, h) }) || slices.Contains(lim.adds, h.ID) {
			continue
		}
		if slices.ContainsFunc(alone.hints, func(want storyHint) bool { return slices.Contains(lim.instead[want.ID], h.ID) }) {
			continue
		}
		t.Errorf("%s: says %s, which the node alone does not\n alone: %v\n %s: %v", path, h, alone.hints, path, got.hints)
	}
	for k, a := range alone.gpus {
		g, ok := got.gpus[k]
		if !ok {
			t.Errorf("%s: GPU%d missing", path, k)
			continue
		}
		for _, f := range []struct {
			name string
			a, b float64
		}{{"util mean", a.UtilMean, g.UtilMean}, {"idle share", a.Idle, g.Idle}, {"energy", a.Energy, g.Energy}} {
			if !closeEnough(f.a, f.b, lim.figureSlack) {
				t.Errorf("%s: GPU%d %s %.4g, alone %.4g", path, k, f.name, f.b, f.a)
			}
		}
	}
}

// closeEnough says whether b is a within rel (relative, with an absolute
// floor of rel for small figures), or both unknown.
func closeEnough(a, b, rel float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) == math.IsNaN(b)
	}
	return math.Abs(a-b) <= rel*max(math.Abs(a), math.Abs(b), 1)
}

func pathJSON(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := gputop(append([]string{"report", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("report %v: exit %d\n%s", args, code, errOut)
	}
	return out
}

func TestEveryPathTellsTheSameStory(t *testing.T) {
	if testing.Short() {
		t.Skip("the differential harness records every scenario several ways (-short leaves it out)")
	}
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	train := recordAt(t, "training", pathLength)
	for _, scenario := range pathScenarios {
		t.Run(scenario, func(t *testing.T) {
			alonePath := recordAt(t, scenario, pathLength)
			alone := storyOf(t, pathJSON(t, alonePath), "", 0)
			if scenario != "training" && len(alone.hints) == 0 {
				t.Errorf("the %s demo alone gives no hint: nothing to hold the paths to", scenario)
			}

			// report --to T of the whole against the report of a session
			// that stopped at T.
			half := pathLength / 2
			short := recordAt(t, scenario, half)
			cut := storyOf(t, pathJSON(t, alonePath, "--to", "+"+fmtDuration(half)), "", 0)
			compareStories(t, "report --to", storyOf(t, pathJSON(t, short), "", 0), cut)

			// The node as node2 of three.
			merged := filepath.Join(t.TempDir(), "hosts.gtr")
			offset := mergeHosts(t, merged, []string{train, alonePath, train}, pathLength)
			compareStories(t, "hosts", alone, storyOf(t, pathJSON(t, merged), "node2", offset))

			// export: the figures as a user's own tools read them.
			checkExportFigures(t, alonePath, alone, 1e-3)

			// serve, scraped by Prometheus, imported back.
			compareStories(t, "prometheus", alone, promStory(t, alonePath))
		})
	}
}

// recordAt is recordDemo in fake time (synctest): every recording starts
// at the same moment, midnight of 2000-01-01, so that the windows a hint
// is judged on (on the clock's multiples of their length) fall alike on
// every path and every run.
func recordAt(t *testing.T, scenario string, d time.Duration) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), scenario+".gtr")
	synctest.Test(t, func(t *testing.T) {
		te := newTestEnv()
		if code := run([]string{"record", "--demo=" + scenario, "--fast", "--duration", fmtDuration(d), "-o", path}, &te.env); code != 0 {
			t.Fatalf("record --demo=%s: exit %d\n%s", scenario, code, te.err.String())
		}
		// The Xid watcher outlives the session by the rest of its wait in
		// NVML (1 s at most: Close does not free a set under a wait).
		time.Sleep(2 * time.Second)
	})
	return path
}

func fmtDuration(d time.Duration) string { return strings.TrimSuffix(d.String(), "0s") }

// mergeHosts plays each recording as a host of a --hosts session (node1,
// node2, ...), through the stream's encoding and the viewer's merge,
// judged and recorded as gputop --hosts --record does, for d of fake time;
// it returns how many seconds into the merged recording the hosts' first
// samples are.
func mergeHosts(t *testing.T, out string, files []string, d time.Duration) (offset float64) {
	t.Helper()
	hosts := make([]string, len(files))
	byHost := map[string]string{}
	for i, f := range files {
		hosts[i] = fmt.Sprintf("node%d", i+1)
		byHost[hosts[i]] = f
	}
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		dial := func(ctx context.Context, host string) (remote.Conn, error) {
			return streamFile(ctx, byHost[host])
		}
		src := remote.Open(remote.Options{Hosts: hosts, Interval: time.Second, Dial: dial, Open: openHostStream,
			MarkLine: remote.MarkLine})
		defer src.Close()
		pipe := newPipeline(timeline.DefaultHistoryBudget)
		opts := pipe.recorderOptions(false, false)
		opts.ShareDir = "" // no socket to attach: nothing outside the bubble
		rec := recordings.NewRecorder(pipe.observed(src, nil), opts)
		if _, err := rec.Start(out); err != nil {
			t.Fatal(err)
		}
		if err := rec.Run(t.Context(), d); err != nil && !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
		if _, err := rec.Stop(); err != nil {
			t.Fatal(err)
		}
		first, _ := mustSpan(t, out)
		offset = first.Sub(start).Seconds()
	})
	return offset
}

func mustSpan(t *testing.T, path string) (time.Time, time.Time) {
	t.Helper()
	r, err := recordings.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	first, last := r.Span()
	return first, last
}

// streamFile is a host's `gputop stream` of a recording: its samples,
// each at this moment's time, one interval apart, through the stream's
// own encoding (the Recorder's writer).
func streamFile(ctx context.Context, path string) (remote.Conn, error) {
	r, err := recordings.Open(path)
	if err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(ctx)
	c := &fileConn{stdout: pr, cancel: cancel}
	src := &pacedReplay{replay: recordings.NewReplay(r), interval: r.Info().Interval}
	rec := recordings.NewRecorder(src, recordings.RecorderOptions{Version: version})
	if err := rec.StartWriter("stdout", pw); err != nil {
		r.Close()
		return nil, err
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer r.Close()
		err := rec.Run(ctx, 0)
		_, _ = rec.Stop()
		pw.CloseWithError(errors.Join(err, io.EOF))
	}()
	return c, nil
}

// pacedReplay is a recording played as a live host samples: one sample
// an interval, stamped now.
type pacedReplay struct {
	replay   *recordings.Replay
	interval time.Duration
	started  bool
}

func (p *pacedReplay) Next(ctx context.Context) (timeline.Sample, error) {
	if p.started {
		select {
		case <-time.After(p.interval):
		case <-ctx.Done():
			return timeline.Sample{}, ctx.Err()
		}
	}
	p.started = true
	s, err := p.replay.Next(ctx)
	s.At = time.Now()
	return s, err
}

func (p *pacedReplay) Info() timeline.SourceInfo { return p.replay.Info() }

type fileConn struct {
	stdout *io.PipeReader
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func (c *fileConn) Stdout() io.Reader      { return c.stdout }
func (c *fileConn) Send(line []byte) error { return nil }
func (c *fileConn) Stderr() string         { return "" }
func (c *fileConn) Close() error {
	c.cancel()
	c.stdout.Close()
	c.wg.Wait()
	return nil
}

// checkExportFigures reads the export's CSV as a user would and holds its
// utilisation to the report's mean and idle share.
func checkExportFigures(t *testing.T, path string, alone story, slack float64) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "x.csv")
	if code, _, errOut := gputop("export", path, "--format", "csv", "-o", out); code != 0 {
		t.Fatalf("export: exit %d\n%s", code, errOut)
	}
	util, idle := exportUtil(t, out, alone.idleUtil)
	for k, a := range alone.gpus {
		if _, ok := util[k]; !ok {
			util[k], idle[k] = math.NaN(), math.NaN() // no utilisation at all: a MIG parent
		}
		if !closeEnough(a.UtilMean, util[k], slack) {
			t.Errorf("export: GPU%d util mean %.4g, the report says %.4g", k, util[k], a.UtilMean)
		}
		if !closeEnough(a.Idle, idle[k], slack) {
			t.Errorf("export: GPU%d idle share %.4g, the report says %.4g", k, idle[k], a.Idle)
		}
	}
}

// exportUtil is each GPU's mean utilisation in an export's CSV, and its
// share of samples under idleUtil: pandas' df.groupby("gpu").util_pct.mean().
func exportUtil(t *testing.T, path string, idleUtil float64) (mean, idle map[int]float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("export CSV: %v (%d rows)", err, len(rows))
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	sum, n, low := map[int]float64{}, map[int]float64{}, map[int]float64{}
	for _, row := range rows[1:] {
		g, err1 := strconv.Atoi(row[col["gpu"]])
		u, err2 := strconv.ParseFloat(row[col["util_pct"]], 64)
		if err1 != nil || err2 != nil {
			continue // the host's rows, and gaps
		}
		sum[g] += u
		n[g]++
		if u < idleUtil {
			low[g]++
		}
	}
	mean, idle = map[int]float64{}, map[int]float64{}
	for g := range n {
		mean[g], idle[g] = sum[g]/n[g], low[g]/n[g]
	}
	return mean, idle
}

// TestEveryPathTellsTheSameStoryOfRealLogs takes the real logs of other
// people's jobs (../shared/telemetry) through the paths a log can take:
// imported whole and reported, the reference; report --to the moment half
// of the log is in, against the import of that half; and the export read
// back. A log gputop cannot import (a W&B stream, a vmstat table) is
// named and passed over. Not here: --hosts and Prometheus, which sample at
// their own interval (a 100 ms log is not what a 1 s scrape keeps).
func TestEveryPathTellsTheSameStoryOfRealLogs(t *testing.T) {
	if testing.Short() {
		t.Skip("the differential harness imports every real log several ways (-short leaves it out)")
	}
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	names, args := realLogNames(t)
	imported := 0
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			whole := filepath.Join(dir, "whole"+filepath.Ext(name))
			data := timelinetest.Telemetry(t, name)
			if err := os.WriteFile(whole, data, 0o600); err != nil {
				t.Fatal(err)
			}
			wholeRec := filepath.Join(dir, "whole.gtr")
			// --start: a log without dates begins at one fixed moment, the
			// whole and its half alike (by default each would end at its
			// file's time, and their windows fall apart).
			const start = "2026-11-22 09:00:00"
			if code, _, errOut := gputop(append([]string{"import", whole, "--start", start, "-o", wholeRec}, args[name]...)...); code != 0 {
				t.Logf("not importable, passed over: %s", strings.TrimSpace(errOut))
				return
			}
			imported++
			alone := storyOf(t, pathJSON(t, wholeRec), "", 0)

			// The first half of the log's lines, imported: what a job
			// stopped there would have left.
			half := filepath.Join(dir, "half"+filepath.Ext(name))
			lines := strings.SplitAfter(string(data), "\n")
			if err := os.WriteFile(half, []byte(strings.Join(lines[:len(lines)/2], "")), 0o600); err != nil {
				t.Fatal(err)
			}
			halfRec := filepath.Join(dir, "half.gtr")
			if code, _, errOut := gputop(append([]string{"import", half, "--start", start, "-o", halfRec}, args[name]...)...); code != 0 {
				t.Fatalf("the first half of %s does not import: %s", name, errOut)
			}
			// The half's own span: a log without timestamps is timed back
			// from its file's end, so the half's first reading, not its
			// time, is the whole's first.
			halfFirst, halfLast := mustSpan(t, halfRec)
			cut := storyOf(t, pathJSON(t, wholeRec, "--to", "+"+halfLast.Sub(halfFirst).Round(time.Millisecond).String()), "", 0)
			path := "report --to of a log"
			if r, err := recordings.Open(wholeRec); err == nil {
				if r.Info().Interval < time.Second {
					path = "report --to of a sub-second log"
				}
				r.Close()
			}
			compareStories(t, path, storyOf(t, pathJSON(t, halfRec), "", 0), cut)

			// A log's interval wavers: the report weighs each reading by its
			// time, a row mean by the row.
			checkExportFigures(t, wholeRec, alone, 0.01)
		})
	}
	if imported == 0 {
		t.Errorf("none of %d real logs imported", len(names))
	}
}

// realLogNames are the logs ../shared/telemetry's README names (its
// sections are "## FILE"), and the import arguments it gives a log ("-
// Import with: `gputop import FILE ARGS -o OUT.gtr`").
func realLogNames(t *testing.T) (names []string, args map[string][]string) {
	t.Helper()
	args = map[string][]string{}
	name := ""
	for _, line := range strings.Split(string(timelinetest.Telemetry(t, "README.md")), "\n") {
		if n, ok := strings.CutPrefix(line, "## "); ok && !strings.Contains(n, " ") {
			name = n
			names = append(names, name)
		}
		if cmd, ok := strings.CutPrefix(line, "- Import with: `gputop import "+name+" "); ok && name != "" {
			cmd, _, _ = strings.Cut(cmd, "`")
			cmd, _, _ = strings.Cut(cmd, " -o ")
			args[name] = strings.Fields(cmd)
		}
	}
	if len(names) == 0 {
		t.Fatal("../shared/telemetry/README.md names no log (its sections are '## FILE')")
	}
	return names, args
}
