package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackageDependencies guards the shape of the code (docs/architecture.md)
// with a test rather than with memory: timeline is the shared vocabulary and
// imports only the standard library and its store's encoding (chunks); its analysis imports only timeline
// (and its units and its own packages: the rules read the frame and the
// Engine lists the rules, never the other way), and its report only those,
// its writers (timeline/report/render) only the report;
// the UI cannot tell live from replay because it imports neither probes nor
// recordings, and shows the analysis without the report's writers; probes
// never draw, and never depend on the demo that simulates them.
func TestPackageDependencies(t *testing.T) {
	const module = "github.com/gputop-dev/gputop/"
	std := func(p string) bool { return !strings.Contains(strings.SplitN(p, "/", 2)[0], ".") }
	rules := []struct {
		dir     string
		allowed func(path string) bool
	}{
		// The store's history is kept in tiers, encoded in chunks, and the
		// GPUs' owners in changes: the standard library only.
		{"timeline", func(p string) bool {
			return std(p) || p == module+"timeline/tiers" || p == module+"timeline/changes"
		}},
		{"timeline/tiers", func(p string) bool { return std(p) || p == module+"timeline/chunks" }},
		{"timeline/chunks", std},
		{"timeline/changes", std},
		{"timeline/units", std},
		// The Xid catalogue and its markers' text: the standard library only.
		{"timeline/xid", std},
		// What a job's progress readings say: the vocabulary alone.
		{"timeline/work", func(p string) bool { return std(p) || p == module+"timeline" }},
		{"timeline/analysis", func(p string) bool {
			return std(p) || p == module+"timeline" || p == module+"timeline/units" || p == module+"timeline/analysis/phases" ||
				p == module+"timeline/analysis/frame" || p == module+"timeline/analysis/rules" ||
				p == module+"timeline/analysis/hosts" || p == module+"timeline/xid"
		}},
		// The rules of one host's GPUs, and those across hosts: they read the
		// frame and nothing of the Engine's, and never each other.
		{"timeline/analysis/rules", func(p string) bool {
			return std(p) || p == module+"timeline" || p == module+"timeline/units" || p == module+"timeline/analysis/frame" ||
				p == module+"timeline/work"
		}},
		{"timeline/analysis/hosts", func(p string) bool {
			return std(p) || p == module+"timeline" || p == module+"timeline/units" || p == module+"timeline/analysis/frame"
		}},
		// What the rules read: the columns, windows and verdicts the Engine
		// keeps. Below the Engine and below every rule, so it cannot name
		// either.
		{"timeline/analysis/frame", func(p string) bool {
			return std(p) || p == module+"timeline" || p == module+"timeline/units" || p == module+"timeline/work"
		}},
		// The labelled corpus and its scorer: the analysis judged, never the
		// importers or the demo (its test drives those).
		{"timeline/analysis/accuracy", func(p string) bool {
			return std(p) || p == module+"timeline" || p == module+"timeline/units" || p == module+"timeline/xid"
		}},
		// How judged windows become phases: the vocabulary alone.
		{"timeline/analysis/phases", func(p string) bool { return std(p) || p == module+"timeline" }},
		{"timeline/report", func(p string) bool {
			return std(p) || p == module+"timeline" || p == module+"timeline/units" || p == module+"timeline/analysis" ||
				p == module+"timeline/analysis/phases" || p == module+"timeline/xid" || p == module+"timeline/work"
		}},
		// The report's writers (text, markdown, HTML, SVG): the Report in,
		// its forms out; never the samples or the analysis it was made of.
		{"timeline/report/render", func(p string) bool {
			return std(p) || p == module+"timeline" || p == module+"timeline/units" || p == module+"timeline/report"
		}},
		// The samples the report's tests and its writers' tests share: never
		// the report itself, so the report's own tests can import it.
		{"timeline/report/reporttest", func(p string) bool {
			return std(p) || p == module+"timeline" || p == module+"timeline/analysis" ||
				p == module+"timeline/timelinetest" || p == module+"timeline/xid"
		}},
		// The snapshot of one reading: the report's numbers and health,
		// written its own way.
		{"timeline/report/snapshot", func(p string) bool {
			return std(p) || p == module+"timeline" || p == module+"timeline/units" || p == module+"timeline/report"
		}},
		// Two reports compared: reports only, never samples; its page in the
		// report page's head and style (render.PageHead).
		{"timeline/report/diff", func(p string) bool {
			return std(p) || p == module+"timeline" || p == module+"timeline/units" || p == module+"timeline/report" ||
				p == module+"timeline/report/render"
		}},
		// The exporter turns samples and the analysis into Prometheus
		// metrics: like the report, it cannot tell live from demo from
		// replay, and it reads no clock.
		{"timeline/exporter", func(p string) bool {
			return std(p) || p == module+"timeline" || p == module+"timeline/analysis" ||
				strings.HasPrefix(p, "github.com/prometheus/client_golang/")
		}},
		{"timeline/timelinetest", func(p string) bool { return std(p) || p == module+"timeline" }},
		{"recordings", func(p string) bool {
			return std(p) || p == module+"timeline" || p == module+"timeline/units" || p == module+"recordings/format" ||
				strings.HasPrefix(p, "github.com/klauspost/compress/")
		}},
		// The bytes of a recording: no files, no compression of its own
		// (the zstd frames are recordings'), and no other of ours than the
		// vocabulary. Only recordings imports it: no other rule lists it.
		{"recordings/format", func(p string) bool { return std(p) || p == module+"timeline" }},
		// A recording read into a store and a judging Engine (report,
		// diff): the reader, the vocabulary and the analysis.
		{"recordings/load", func(p string) bool {
			return std(p) || p == module+"timeline" || p == module+"recordings" || p == module+"timeline/analysis"
		}},
		{"recordings/importer", func(p string) bool {
			return std(p) || p == module+"timeline" || p == module+"timeline/units"
		}},
		// Prometheus' answers into samples, on the importer's helpers; the
		// importer never imports it.
		{"recordings/importer/prom", func(p string) bool {
			return std(p) || p == module+"timeline" || p == module+"timeline/units" || p == module+"recordings/importer" ||
				p == module+"timeline/xid"
		}},
		{"recordings/export", func(p string) bool {
			return std(p) || p == module+"timeline" || p == module+"recordings"
		}},
		{"recordings/recordingstest", func(p string) bool { return std(p) || p == module+"timeline" }},
		{"probes", func(p string) bool {
			return std(p) || p == module+"timeline" || p == module+"timeline/units" || p == module+"probes/marks" ||
				p == module+"probes/probe" || p == module+"probes/progress" || p == module+"probes/nvidia" ||
				p == module+"probes/owners" || strings.HasPrefix(p, "github.com/NVIDIA/go-nvml/") ||
				strings.HasPrefix(p, "github.com/shirou/gopsutil/") || strings.HasPrefix(p, "golang.org/x/sys/")
		}},
		// What a probe is (Probe, Reading): below every probe and below
		// probes itself, so a probe in a package of its own can implement
		// it while probes lists that probe.
		{"probes/probe", func(p string) bool { return std(p) || p == module+"timeline" }},
		// The GPUs through NVML: the contract, go-nvml and the vocabulary;
		// never probes (which imports it), never the demo that drives its
		// mock.
		{"probes/nvidia", func(p string) bool {
			return std(p) || p == module+"timeline" || p == module+"timeline/units" || p == module+"timeline/xid" ||
				p == module+"probes/probe" || strings.HasPrefix(p, "github.com/NVIDIA/go-nvml/")
		}},
		// gputop --hosts: the hosts' streams merged into one Source. It reads
		// streams through recordings and never draws.
		{"probes/remote", func(p string) bool {
			return std(p) || p == module+"timeline" || p == module+"recordings" || p == module+"timeline/xid"
		}},
		// Who holds each GPU: the kubelet's pod-resources API through its
		// gRPC client, and Slurm's files; never probes, which lists it.
		{"probes/owners", func(p string) bool {
			return std(p) || p == module+"timeline" || p == module+"probes/probe" ||
				strings.HasPrefix(p, "google.golang.org/grpc") || p == "k8s.io/kubelet/pkg/apis/podresources/v1"
		}},
		// The job's progress from its output lines: pure, on the vocabulary.
		{"probes/progress", func(p string) bool { return std(p) || p == module+"timeline" }},
		// The marker socket speaks its protocol and nothing else.
		{"probes/marks", std},
		// MIG handles for go-nvml's mock servers, shared by the demo and the
		// probe's tests: only go-nvml, so either can import it.
		{"probes/mockmig", func(p string) bool { return std(p) || strings.HasPrefix(p, "github.com/NVIDIA/go-nvml/") }},
		// The demo builds on probes, which (above) cannot reach back to it; a
		// simulated machine has no need of the real host's gopsutil or x/sys.
		{"probes/demo", func(p string) bool {
			return std(p) || p == module+"timeline" || p == module+"probes" || p == module+"probes/mockmig" ||
				strings.HasPrefix(p, "github.com/NVIDIA/go-nvml/")
		}},
		// The screen shows the analysis, drawn its own way: not the report.
		// Its rooms (ui/...) have rules of their own below.
		{"ui", func(p string) bool {
			return !strings.HasPrefix(p, module) || p == module+"timeline" || p == module+"timeline/units" ||
				p == module+"timeline/xid" || p == module+"timeline/analysis" || p == module+"timeline/work" ||
				strings.HasPrefix(p, module+"ui/")
		}},
		{"ui/screen", func(p string) bool { return !strings.HasPrefix(p, module) }},
		// The cursor and how it moves: times in, times out, no clock.
		{"ui/playback", std},
		// Where [ and ] land: markers and hints in, a time out.
		{"ui/jump", func(p string) bool { return std(p) || p == module+"timeline" }},
		// The settings file: the vocabulary's metric names, nothing more.
		{"ui/config", func(p string) bool { return std(p) || p == module+"timeline" }},
		// The key table and its rows' handlers: bubbles' bindings and
		// bubbletea's messages, nothing of gputop.
		{"ui/keymap", func(p string) bool {
			return std(p) || p == "github.com/charmbracelet/bubbles/key" || p == "github.com/charmbracelet/bubbletea"
		}},
		// Where everything goes for a size: a pure function of numbers.
		{"ui/layout", func(p string) bool { return std(p) || p == module+"timeline" }},
		// The panels: what they show comes in as plain data, rows go out.
		{"ui/band", func(p string) bool {
			return std(p) || p == module+"timeline" || p == module+"ui/draw" || p == "github.com/rivo/uniseg"
		}},
		{"ui/help", func(p string) bool {
			return std(p) || p == module+"ui/draw" || p == module+"ui/keymap" || p == module+"ui/scroll" ||
				p == "github.com/charmbracelet/bubbletea"
		}},
		// The footer's question: its keys, its row, nothing of the session.
		{"ui/prompt", func(p string) bool {
			return std(p) || p == module+"ui/draw" || p == module+"ui/keymap" || p == "github.com/charmbracelet/bubbletea"
		}},
		// A replay's transport row, from the cursor's plain data.
		{"ui/transport", func(p string) bool { return std(p) || p == module+"ui/draw" || p == module+"ui/playback" }},
		// The GPU list's selection and its hosts' arrangement: the
		// session's description and the layout, never the store.
		{"ui/gpulist", func(p string) bool { return std(p) || p == module+"timeline" || p == module+"ui/layout" }},
		// Who holds each GPU, drawn from the owners handed to it.
		{"ui/alloc", func(p string) bool { return std(p) || p == module+"timeline" || p == module+"ui/draw" }},
		// The one scroll component: numbers in, numbers out.
		{"ui/scroll", std},
		{"ui/hostpanel", func(p string) bool { return std(p) || p == module+"ui/draw" || p == module+"ui/layout" }},
		{"ui/hostrow", func(p string) bool {
			return std(p) || p == module+"ui/draw" || p == module+"ui/layout" || p == module+"timeline"
		}},
		{"ui/hints", func(p string) bool {
			return std(p) || p == module+"timeline" || p == module+"timeline/units" || p == module+"timeline/analysis" ||
				p == module+"ui/draw"
		}},
		{"ui/procs", func(p string) bool {
			return std(p) || p == module+"timeline" || p == module+"timeline/units" || p == module+"ui/draw" ||
				p == module+"ui/keymap" || p == module+"ui/scroll"
		}},
		// The drawing primitives: strings, numbers and times in, painted
		// rows out; below every panel, so nothing of the screen above them.
		{"ui/draw", func(p string) bool {
			return std(p) || p == module+"timeline" || p == module+"timeline/units" ||
				p == "github.com/charmbracelet/lipgloss" || p == "github.com/charmbracelet/x/ansi" ||
				p == "github.com/rivo/uniseg"
		}},
		// The command line's help, man page and completions: made of what
		// the commands say of themselves, as cobra holds them.
		{"packaging/clidoc", func(p string) bool {
			return std(p) || p == "github.com/spf13/cobra" || p == "github.com/spf13/pflag"
		}},
		// Which build a binary is, from the go command's stamp.
		{"packaging/buildinfo", std},
		// A tool of scripts/bench.sh: it runs the built binary on a
		// pseudo-terminal, and imports none of gputop.
		{"scripts/firstframe", func(p string) bool { return std(p) || p == "golang.org/x/sys/unix" }},
	}
	// Every package has a rule: a new one cannot slip past the design.
	known := map[string]bool{".": true}
	for _, r := range rules {
		known[r.dir] = true
	}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if files, _ := filepath.Glob(filepath.Join(path, "*.go")); len(files) > 0 && !known[path] {
			t.Errorf("package %s has no rule in TestPackageDependencies: say what it may import", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		files, err := filepath.Glob(filepath.Join(r.dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", r.dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue // tests may reach further: timeline's hint tests play the demo
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			parsed, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range parsed.Imports {
				if path := strings.Trim(imp.Path.Value, `"`); !r.allowed(path) {
					t.Errorf("%s imports %s, which %s may not", f, path, r.dir)
				}
			}
		}
	}
}

// maxPackageLines is the most lines of Go, tests aside, that one package
// may hold (issue 25): past it, a package holds more than one concern, and
// the tree no longer shows where a piece goes.
const maxPackageLines = 4000

// TestNoPackageIsTooBig counts each package's lines as `wc -l` does.
func TestNoPackageIsTooBig(t *testing.T) {
	lines := map[string]int{}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines[filepath.Dir(path)] += strings.Count(string(b), "\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir, n := range lines {
		if n > maxPackageLines {
			t.Errorf("package %s has %d lines of Go (tests aside), more than %d: cut it along a concern", dir, n, maxPackageLines)
		}
	}
	if lines["ui"] == 0 || lines["timeline"] == 0 {
		t.Errorf("counted no lines in ui or timeline: %v", lines)
	}
}
