package accuracy

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline/units"
)

// The goals the document checks every hint against (issue 43): a hint
// with at least GoalLabels labelled episodes must reach GoalPrecision and
// GoalRecall.
const (
	GoalLabels    = 20
	GoalPrecision = 0.95
	GoalRecall    = 0.90
)

// Markdown is docs/accuracy.md: the figures, the corpus and every miss.
// It is a pure function of the outcomes, so a rerun writes the same bytes.
func Markdown(outcomes []Outcome) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	t := Count(outcomes)
	w("# How often gputop's hints are right\n\n")
	w("Written by `scripts/accuracy.sh` (the test `TestAccuracy` in `timeline/analysis/accuracy`); do not edit by hand.\n")
	w("CI fails when any figure here drops or a case read right is read wrong, naming the cases lost.\n\n")
	w("Every case of a labelled corpus is judged as a user would see it: the run is imported (or recorded, for the\n")
	w("demos and the runs that need the host), fed to the analysis as a live screen is fed, and the hints of a\n")
	w("report over the whole run are compared with the case's labels:\n\n")
	w("- a **label** is a hint, its GPUs and its stretch; a hint's episode answers it where the id is the same, the\n")
	w("  stretches overlap and a GPU is shared. **Recall** is the labels answered over all labels.\n")
	w("- every episode gputop raises answers a label (right), is allowed by the case without being required (a\n")
	w("  second true reading: not counted), or is **wrong**. **Precision** is right over right and wrong.\n")
	w("- a **healthy control** is a run with nothing wrong: any episode at warning or worse is a false warning.\n")
	w("- **time to first detection** is how long after a labelled stretch began the live screen (asked every %v\n", LiveStep)
	w("  of sample time) first showed a hint that answers it, for the real logs and the synthetic runs (the demos\n")
	w("  deliver Xids from a goroutine of their own, so their first readings move by a tick between runs).\n\n")
	w("## Summary\n\n")
	w("%d cases, %d read right (%s). Healthy controls: %d runs, %s of samples, %s (%s an hour).\n\n",
		t.Cases, t.OK, pct(float64(t.OK)/float64(max(1, t.Cases))), t.HealthyCases, hours(t.HealthyHours),
		units.Count(t.HealthyWarnings, "false warning"), strconv.FormatFloat(t.WarningsPerHour(), 'f', 2, 64))
	w("| part | cases | read right |\n|---|---|---|\n")
	for _, p := range []Part{Real, Demo, Synthetic} {
		pt := Count(only(outcomes, func(c Case) bool { return c.Part == p }))
		w("| %s | %d | %d |\n", p, pt.Cases, pt.OK)
	}
	w("\n## Every hint\n\n")
	w("Goal: a hint with at least %d labelled episodes has precision %.2f or more and recall %.2f or more.\n\n",
		GoalLabels, GoalPrecision, GoalRecall)
	w("| hint | labels | found | recall | right | wrong | precision | first seen (median, max) | goal |\n")
	w("|---|---|---|---|---|---|---|---|---|\n")
	for _, f := range t.Hints {
		goal := "too few labels"
		if f.Labels >= GoalLabels {
			goal = "met"
			if f.Precision() < GoalPrecision || f.Recall() < GoalRecall {
				goal = "**missed**"
			}
		}
		w("| `%s` | %d | %d | %s | %d | %d | %s | %s | %s |\n", f.ID, f.Labels, f.Found, ratio(f.Recall()),
			f.Right, f.Wrong, ratio(f.Precision()), delays(f), goal)
	}
	w("\nHints with no row are in no label and were raised nowhere: the corpus does not cover them yet.\n")
	writeReal(w, outcomes, Real, "## The real logs", "Other people's logs of real jobs from public repositories, read where they are kept beside the repository "+
		"and never copied into it, each with its source and what an expert reads in it: that reading is the label.")
	writeReal(w, outcomes, Demo, "## The demo scenarios", "Each `--demo` scenario recorded for 10 minutes, seed 1, through the "+
		"real NVML probe over go-nvml's mock.")
	writeSynthetic(w, outcomes)
	w("\n## Every miss\n\n")
	any := false
	for _, o := range outcomes {
		if o.OK() {
			continue
		}
		any = true
		w("- `%s` (%s)", o.Case.Name, o.Case.Shape)
		if o.Case.Why != "" {
			w(": %s", o.Case.Why)
		}
		w("\n")
		for _, m := range o.Misses() {
			w("  - %s\n", m)
		}
	}
	if !any {
		w("None.\n")
	}
	w("\n## Every case\n\n| case | verdict |\n|---|---|\n")
	for _, o := range outcomes {
		v := "right"
		if !o.OK() {
			v = "wrong"
		}
		w("| `%s` | %s |\n", o.Case.Name, v)
	}
	return b.String()
}

// LiveStep is how often, in sample time, the scorer's live screen is
// asked for the time to first detection (documented here; the test asks
// at this step).
const LiveStep = 5 * time.Second

func writeReal(w func(string, ...any), outcomes []Outcome, part Part, title, about string) {
	w("\n%s\n\n%s\n\n| case | the reading | gputop says | verdict |\n|---|---|---|---|\n", title, about)
	for _, o := range only(outcomes, func(c Case) bool { return c.Part == part }) {
		w("| `%s` | %s | %s | %s |\n", o.Case.Family, o.Case.Reading, said(o), verdict(o))
	}
}

// said lists what gputop raised, hint by hint, with its GPUs.
func said(o Outcome) string {
	if o.Err != "" {
		return o.Err
	}
	return o.saidList(func(s Said) string { return fmt.Sprintf("%s %s (%s)", s.ID, gpuList(s.GPUs), s.Severity) }, "; ")
}

func verdict(o Outcome) string {
	if o.OK() {
		return "right"
	}
	return "**wrong**"
}

func writeSynthetic(w func(string, ...any), outcomes []Outcome) {
	w("\n## The synthetic runs\n\n")
	w("Made in memory by a seeded generator (`families.go`) in the shapes of the real logs, with noise, sampling\n")
	w("from 100 ms to 30 s, columns left out, and the files users keep: `nvidia-smi --query-gpu` CSV with and\n")
	w("without units, header or index column, `nvidia-smi dmon`, `dcgmi dmon` text and DCGM CSV, in UTF-8, CRLF and\n")
	w("UTF-16. Findings that need what only gputop's own recordings hold (the host's CPU, cores and iowait, the\n")
	w("job's progress, Xid markers, PCIe link state, several hosts in one session) are recorded as gputop records them.\n\n")
	w("| family | what happens | runs | formats | intervals | read right |\n|---|---|---|---|---|---|\n")
	var fams []string
	for _, o := range outcomes {
		if o.Case.Part == Synthetic && !slices.Contains(fams, o.Case.Family) {
			fams = append(fams, o.Case.Family)
		}
	}
	for _, fam := range fams {
		runs := only(outcomes, func(c Case) bool { return c.Part == Synthetic && c.Family == fam })
		var formats, periods []string
		for _, o := range runs {
			f, iv := shapeParts(o.Case.Shape)
			if !slices.Contains(formats, f) {
				formats = append(formats, f)
			}
			if !slices.Contains(periods, iv) {
				periods = append(periods, iv)
			}
		}
		t := Count(runs)
		w("| %s | %s | %d | %s | %s | %d |\n", fam, runs[0].Case.Reading, t.Cases, strings.Join(formats, ", "),
			strings.Join(periods, ", "), t.OK)
	}
}

// only is the outcomes of the cases keep accepts.
func only(outcomes []Outcome, keep func(c Case) bool) []Outcome {
	return slices.DeleteFunc(slices.Clone(outcomes), func(o Outcome) bool { return !keep(o.Case) })
}

// shapeParts takes a run's format and interval from its shape (Run.String).
func shapeParts(shape string) (format, interval string) {
	parts := strings.Split(shape, ", ")
	for _, p := range parts {
		if iv, ok := strings.CutPrefix(p, "every "); ok {
			interval = iv
		}
	}
	return parts[0], interval
}

func pct(f float64) string { return strconv.FormatFloat(100*f, 'f', 1, 64) + "%" }

func ratio(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }

func hours(h float64) string { return units.Duration(time.Duration(h * float64(time.Hour))) }

func delays(f Figures) string {
	if len(f.Delays) == 0 {
		return "-"
	}
	return units.Duration(f.MedianDelay().Round(time.Second)) + ", " + units.Duration(f.MaxDelay().Round(time.Second))
}
