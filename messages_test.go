package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/report/snapshot"
)

// t0 is a time the tests' samples start at.
var t0 = time.Date(2026, 11, 25, 14, 0, 0, 0, time.UTC)

// What a new user reads: each command's --help, the one line a mistake
// gets, and the exit code a script sees.

// Every command's --help shows its usage line, every flag it takes and an
// example, on stdout, and exits 0; gputop help CMD says the same.
func TestEveryCommandHasHelp(t *testing.T) {
	flags := map[string][]string{
		"live":     {"--interval", "--record", "--demo", "--ascii", "--force", "--log", "--cpuprofile", "--hosts", "--ssh-command", "--listen", "--readonly"},
		"snapshot": {"--json", "--demo"},
		"record":   {"-o", "--duration", "--interval", "--demo", "--fast", "--force"},
		"replay":   {"--speed", "--start", "--ascii", "--log"},
		"run":      {"-o", "--phase-regex", "--interval", "--kill-after", "--demo", "--force", "--fail-on"},
		"mark":     {},
		"report":   {"--format", "--from", "--to", "--phases", "-o", "--force", "--fail-on"},
		"diff":     {"--format", "--fail-if"},
		"export":   {"--format", "-o", "--force"},
		"import":   {"-o", "--format", "--start", "--interval", "--columns", "--force"},
		"serve":    {"--listen", "--interval", "--demo", "-o", "--force", "--web.config.file"},
		"stream":   {"--interval", "--demo", "--duration", "--session", "--new", "--history"},
		"attach":   {"--list", "--ascii", "--log"},
		"version":  {},
	}
	if len(flags) != len(commandNames(false)) {
		t.Fatalf("the test knows %d commands, gputop has %d", len(flags), len(commandNames(false)))
	}
	for _, c := range commandNames(false) {
		t.Run(c, func(t *testing.T) {
			te := newTestEnv()
			if code := run([]string{c, "--help"}, &te.env); code != 0 || te.err.String() != "" {
				t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, te.err.String())
			}
			help := te.out.String()
			usage := "Usage: gputop " + c
			if c == "live" {
				usage = "Usage: gputop [live]"
			}
			if !strings.HasPrefix(help, usage) {
				t.Errorf("help does not start with %q:\n%s", usage, help)
			}
			for _, f := range append(flags[c], "-h, --help") {
				if !strings.Contains(help, "\n  "+f) {
					t.Errorf("help does not list %s:\n%s", f, help)
				}
			}
			_, examples, ok := strings.Cut(help, "\nExamples:\n")
			if !ok || !strings.HasPrefix(strings.TrimSpace(examples), "gputop") {
				t.Errorf("help has no example:\n%s", help)
			}
			for _, line := range strings.Split(help, "\n") {
				if w := utf8.RuneCountInString(line); w > messageWidth {
					t.Errorf("help line of %d columns: %q", w, line)
				}
			}
			viaHelp := newTestEnv()
			if code := run([]string{"help", c}, &viaHelp.env); code != 0 || viaHelp.out.String() != help {
				t.Errorf("gputop help %s: exit %d, and not what --help says:\n%s", c, code, viaHelp.out.String())
			}
		})
	}
}

// A usage error (an unknown flag or command, a bad value, the wrong
// arguments) exits 2, a failure at run time (a missing or damaged file) 1,
// and either says so in one line of at most 80 columns, the useful part
// first.
func TestMistakesGetOneLineAndTheRightExitCode(t *testing.T) {
	isolateMarks(t)
	// Paths as a person types them, relative: the test measures the
	// message, not where Go keeps its temporary files.
	dir := t.TempDir()
	t.Chdir(dir)
	text := "notes.txt"
	if err := os.WriteFile(text, []byte("epoch 1 loss 0.3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := "ok.gtr"
	if code := run([]string{"record", "-o", rec, "--demo", "--fast", "--duration", "2s"}, &newTestEnv().env); code != 0 {
		t.Fatal("record failed")
	}
	missing := "missing.gtr"
	nowhere := filepath.Join("no", "such", "dir.gtr")
	for _, tt := range []struct {
		args  []string
		code  int
		start string // how the line starts: who speaks, then the point
		// wide marks a line that lists every valid choice: a terminal
		// wraps it rather than cuts it, and the list is the point.
		wide bool
	}{
		{[]string{"frobnicate"}, 2, `gputop: unknown command "frobnicate"`, false},
		{[]string{"help", "frobnicate"}, 2, `gputop: unknown command "frobnicate"`, false},
		{[]string{"--nope"}, 2, "gputop: unknown flag --nope", false},
		{[]string{"--demo=bogus"}, 2, `gputop: unknown demo scenario "bogus" (one of: training, input-bound,`, true},
		{[]string{"--interval", "soon"}, 2, `gputop: --interval "soon" is not a duration`, false},
		{[]string{"--interval", "10ms"}, 2, "gputop: --interval 10ms is too short", false},
		{[]string{"live", "extra"}, 2, `gputop live: unexpected argument "extra"`, false},
		{[]string{"--memory", "lots"}, 2, `gputop: --memory "lots": want a size such as 256MiB or 1GiB`, false},
		{[]string{"--memory", "1MiB"}, 2, `gputop: --memory "1MiB": want 16MiB to 64GiB`, false},
		{[]string{"--record", nowhere}, 1, "gputop: cannot write " + nowhere, false},
		{[]string{"--hosts", "node[3-"}, 2, `gputop: --hosts: "node[3-": "[" without "]"`, false},
		{[]string{"--hosts", "node[8-3]"}, 2, `gputop: --hosts: "node[8-3]": range 8-3 runs backwards`, false},
		{[]string{"--hosts", "n[1-5000]"}, 2, "gputop: --hosts: more than 1024 hosts", false},
		{[]string{"--hosts", "-oProxyCommand=x"}, 2, `gputop: --hosts: host "-oProxyCommand=x" starts with "-"`, false},
		{[]string{"--ssh-command", "ssh"}, 2, "gputop: --hosts: no hosts given", false},
		{[]string{"--hosts", "a", "--listen", "127.0.0.1:0"}, 2, "gputop: --listen and --hosts do not go together: run gputop serve on each host", false},
		{[]string{"--hosts", "a", "--ssh-command", "'x"}, 2, "gputop: --ssh-command: unclosed ' quote", false},
		{[]string{"--hosts", "a", "--demo"}, 2, "gputop: --demo and --hosts do not go together", false},
		{[]string{"snapshot", "extra"}, 2, `gputop snapshot: unexpected argument "extra"`, false},
		{[]string{"snapshot", "--json=maybe"}, 2, "gputop snapshot: --json takes no value", false},
		{[]string{"snapshot", "--demo=bogus"}, 2, `gputop snapshot: unknown demo scenario "bogus"`, true},
		{[]string{"record", "--demo"}, 2, "gputop record: -o FILE is required", false},
		{[]string{"record", "-o"}, 2, "gputop record: -o needs a FILE", false},
		{[]string{"record", "-o", rec, "--duration", "5x"}, 2, `gputop record: --duration "5x" is not a duration`, false},
		{[]string{"record", "-o", nowhere, "--demo"}, 1, "gputop record: cannot write " + nowhere, false},
		{[]string{"record", "-o", rec, "--demo"}, 1, "gputop record: " + rec + " exists; use --force", false},
		{[]string{"record", "-o", "i.gtr", "--demo", "--duration", "0"}, 2, "gputop record: --duration must be more than 0", false},
		{[]string{"record", "-o", ".", "--demo", "--force"}, 1, "gputop record: . is a directory; give a file name, such as run.gtr", false},
		{[]string{"stream", "--demo", "--duration", "0"}, 2, "gputop stream: --duration must be more than 0", false},
		{[]string{"replay"}, 2, "gputop replay: give one recording to replay", false},
		{[]string{"replay", rec, "--speed", "fast"}, 2, `gputop replay: --speed "fast" is not a number`, false},
		{[]string{"replay", rec, "--speed", "100"}, 2, "gputop replay: --speed 100 is out of range", false},
		{[]string{"replay", rec, "--speed", "NaN"}, 2, "gputop replay: --speed NaN is out of range", false},
		{[]string{"replay", missing}, 1, "gputop replay: " + missing + ": no such file", false},
		{[]string{"replay", text}, 1, "gputop replay: " + text + ": not a gputop recording", false},
		{[]string{"run"}, 2, "gputop run: give the command to run after --", false},
		{[]string{"run", "--kill-after", "-1s", "--", "true"}, 2, "gputop run: --kill-after must not be negative", false},
		{[]string{"run", "--phase-regex", "(", "--", "true"}, 2, "gputop run: --phase-regex: ", false},
		{[]string{"run", "-o", nowhere, "--", "true"}, 1, "gputop run: cannot write " + nowhere, false},
		{[]string{"run", "--demo", "--", "no-such-command-here"}, 127, "gputop run: no-such-command-here: command not found", false},
		{[]string{"run", "--demo", "--", "./" + text}, 126, "gputop run: ./" + text + ": cannot run it (permission denied)", false},
		{[]string{"mark"}, 2, "gputop mark: give the marker's text", false},
		{[]string{"mark", "--nope"}, 2, "gputop mark: unknown flag --nope", false},
		{[]string{"mark", "eval"}, 1, "gputop mark: no gputop session", false},
		{[]string{"report"}, 2, "gputop report: give one recording", false},
		{[]string{"report", rec, "--format", "xml"}, 2, `gputop report: unknown --format "xml" (text, markdown, json, html or svg)`, false},
		{[]string{"report", rec, "--to", "soon"}, 2, `gputop report: --to "soon" is not a time`, false},
		{[]string{"report", missing}, 1, "gputop report: " + missing + ": no such file", false},
		{[]string{"report", text}, 1, "gputop report: " + text + ": not a gputop recording", false},
		{[]string{"export", rec}, 2, "gputop export: --format csv or --format jsonl is required", false},
		{[]string{"export", rec, "--format", "xml"}, 2, `gputop export: unknown --format "xml" (csv or jsonl)`, false},
		{[]string{"export", missing, "--format", "csv"}, 1, "gputop export: " + missing + ": no such file", false},
		{[]string{"import", text}, 2, "gputop import: -o FILE is required", false},
		{[]string{"import", text, "-o", "i.gtr", "--format", "xyz"}, 2, `gputop import: unknown --format "xyz" (auto, nvidia-smi-csv,`, false},
		{[]string{"import", text, "-o", "i.gtr", "--start", "noon"}, 2, `gputop import: "noon" is not a date and time`, false},
		{[]string{"import", "missing.csv", "-o", "i.gtr"}, 1, "gputop import: missing.csv: no such file", false},
		{[]string{"import", text, "-o", "i.gtr"}, 1, "gputop import: " + text + ": unknown log format (nvidia-smi-csv,", false},
		{[]string{"version", "extra"}, 2, `gputop version: unexpected argument "extra"`, false},
	} {
		te := newTestEnv()
		code := run(tt.args, &te.env)
		stderr := te.err.String()
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		switch {
		case code != tt.code:
			t.Errorf("gputop %s: exit %d, want %d; stderr %q", strings.Join(tt.args, " "), code, tt.code, stderr)
		case len(lines) != 1 || !strings.HasSuffix(stderr, "\n"):
			t.Errorf("gputop %s: stderr %q, want one line", strings.Join(tt.args, " "), stderr)
		case !strings.HasPrefix(lines[0], tt.start):
			t.Errorf("gputop %s: %q, want it to start %q", strings.Join(tt.args, " "), lines[0], tt.start)
		case !tt.wide && utf8.RuneCountInString(lines[0]) > messageWidth:
			t.Errorf("gputop %s: %q is longer than %d columns", strings.Join(tt.args, " "), lines[0], messageWidth)
		case strings.Contains(stderr, "invalid value") || strings.Contains(stderr, "flag provided"):
			t.Errorf("gputop %s: %q speaks the flag package's words", strings.Join(tt.args, " "), stderr)
		}
	}
}

// The status lines a recording ends with fit 80 columns and say the file
// first among the numbers; plurals agree with their counts.
func TestRecordingSummarySaysWhereAndHowMuch(t *testing.T) {
	for _, tt := range []struct {
		sum  recordings.Summary
		want string
	}{
		{recordings.Summary{Path: "run.gtr", Samples: 1, Bytes: 4800}, "recorded 0s to run.gtr (1 sample, 4.69KiB)"},
		{recordings.Summary{Path: "run.gtr", Samples: 181, Bytes: 412 << 10, First: t0, Last: t0.Add(180e9)}, "recorded 3m to run.gtr (181 samples, 412KiB)"},
		{recordings.Summary{Path: "run.gtr", Removed: true}, "no samples were recorded; run.gtr was not kept"},
	} {
		if got := summaryLine(tt.sum); got != tt.want {
			t.Errorf("summaryLine = %q, want %q", got, tt.want)
		}
	}
}

// A full disk stops a recording with a line that says so once, the cause
// first: not "recording stopped early: recording run.gtr stopped: ...".
func TestStoppedRecordingSaysWhyOnce(t *testing.T) {
	var out strings.Builder
	failure := fmt.Errorf("run.gtr: %w", errors.New("no space left on device"))
	reportSummary(&out, recordings.Summary{Path: "run.gtr", Samples: 3, Failed: failure}, nil)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	last := lines[len(lines)-1]
	if want := "recording stopped early: run.gtr: no space left on device (what came before is readable)"; last != want {
		t.Errorf("%q, want %q", last, want)
	}
	if strings.Count(out.String(), "stopped") != 1 {
		t.Errorf("says stopped more than once:\n%s", out.String())
	}
}

// The r key's messages are the screen's status line: a file that cannot
// be created is named in a few words, with no advice about a flag the
// screen has no place for.
func TestLiveRecordingFailureIsAShortStatus(t *testing.T) {
	dir := t.TempDir()
	taken := filepath.Join(dir, "taken.gtr")
	if err := os.WriteFile(taken, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	live := &liveRecording{rec: recordings.NewRecorder(nil, newPipeline(timeline.DefaultHistoryBudget).recorderOptions(false, false)), next: taken}
	_, err := live.Start()
	if err == nil || err.Error() != "cannot create taken.gtr: "+fs.ErrExist.Error() {
		t.Errorf("Start over an existing file: %v", err)
	}
	if err != nil && (strings.Contains(err.Error(), "--") || utf8.RuneCountInString(err.Error()) > messageWidth-len(" recording: ")) {
		t.Errorf("%q is not a short status line", err)
	}
}

// Without a GPU, the snapshot's JSON lists none: "gpus": [], as
// docs/snapshot.md promises, never null.
func TestSnapshotJSONWithoutGPUsHasAnEmptyList(t *testing.T) {
	s := timeline.Sample{At: t0}
	var out strings.Builder
	if err := writeSnapshotJSON(&out, snapshot.New(&s, &s, timeline.SourceInfo{})); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"gpus": [],`) {
		t.Errorf("no empty list of GPUs:\n%s", out.String())
	}
}

// gputop run with its stdout and stderr on one file (a terminal, 2>&1)
// keeps the job's lines in the order the job wrote them, across the two
// streams.
func TestRunKeepsTheOrderOfTheJobsLines(t *testing.T) {
	isolateMarks(t)
	dir := t.TempDir()
	both, err := os.Create(filepath.Join(dir, "both"))
	if err != nil {
		t.Fatal(err)
	}
	defer both.Close()
	te := newTestEnv()
	te.stdout, te.stderr = both, both
	script := `for i in $(seq 1 200); do echo "out $i"; echo "err $i" >&2; done`
	if code := run([]string{"run", "-o", filepath.Join(dir, "r.gtr"), "--demo", "--", "sh", "-c", script}, &te.env); code != 0 {
		t.Fatalf("exit %d", code)
	}
	b, err := os.ReadFile(both.Name())
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&want, "out %d\nerr %d\n", i, i)
	}
	if !strings.HasPrefix(string(b), want.String()) {
		got, _, _ := strings.Cut(string(b), "\n\n")
		t.Errorf("the job's lines came out of order:\n%s", got)
	}
}

// `gputop stream < /dev/null` stops before its first sample: it says why
// instead of exiting silently with nothing written.
func TestStreamWithStdinClosedSaysSo(t *testing.T) {
	isolateMarks(t)
	te := newTestEnv()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	te.env.stdin = null
	code := run([]string{"stream", "--demo"}, &te.env)
	if want := "gputop stream: stdin closed before the first sample: nothing sent (--duration D streams for D)\n"; code != 1 || te.err.String() != want {
		t.Fatalf("exit %d, stderr %q; want 1 and %q", code, te.err.String(), want)
	}
}

// The overview of every command fits 80 columns, a synopsis's bracketed
// groups whole on their lines.
func TestUsageFitsEightyColumns(t *testing.T) {
	te := newTestEnv()
	if code := run([]string{"--help"}, &te.env); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, line := range strings.Split(te.out.String(), "\n") {
		if w := utf8.RuneCountInString(line); w > messageWidth || strings.HasSuffix(line, " ") {
			t.Errorf("line of %d columns, or with a trailing space: %q", w, line)
		}
		if strings.Count(line, "[") != strings.Count(line, "]") {
			t.Errorf("a bracketed group split across lines: %q", line)
		}
	}
}

// --demo takes its scenario after a space too, as a person types it, and
// leaves a recording's name alone.
func TestDemoScenarioAfterASpace(t *testing.T) {
	te := newTestEnv()
	if code := run([]string{"snapshot", "--demo", "checkpoint"}, &te.env); code != 0 || !strings.Contains(te.out.String(), "DEMO CHECKPOINT") {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, te.err.String(), te.out.String())
	}
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	demoVar(fs, &demoFlag{}, "")
	for _, tt := range []struct{ in, want []string }{
		{[]string{"--demo", "throttle", "-o", "x"}, []string{"--demo=throttle", "-o", "x"}},
		{[]string{"--demo", "run.gtr"}, []string{"--demo", "run.gtr"}},
		{[]string{"--demo", "--", "--demo", "mig"}, []string{"--demo", "--", "--demo", "mig"}},
	} {
		if got := joinDemoScenario(fs, tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("joinDemoScenario(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A settings file gputop cannot take is one line naming the file and the
// line, and exit 2, before any screen; the command line wins over it.
func TestBadSettingsFileIsOneLine(t *testing.T) {
	path := settingsFile(t)
	if err := os.WriteFile(path, []byte("# mine\ninterval = \"5x\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	te := newTestEnv()
	code := run([]string{"--demo"}, &te.env)
	want := "gputop: " + path + `:2: interval = "5x" is not a duration such as 500ms, 2s or 1m` + "\n"
	if code != 2 || te.err.String() != want {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, te.err.String(), want)
	}
	if got := settingsPath(func(string) string { return "" }); !strings.HasSuffix(got, filepath.Join(".config", "gputop", "config.toml")) {
		t.Errorf("without XDG_CONFIG_HOME the file is ~/.config/gputop/config.toml, not %q", got)
	}
}
