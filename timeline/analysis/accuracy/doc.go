// Package accuracy scores gputop's hints against a labelled corpus and
// writes what it finds as docs/accuracy.md: the published precision and
// recall of every hint, the false warnings on healthy runs, how soon each
// finding shows, and every miss with its cause.
//
//	corpus ─────────────────────────────┐
//	  real logs (RealLogs: the expert's   │  the test imports each (the
//	    reading of ../shared/telemetry)   │  importer, the demo), feeds an
//	  demo scenarios (Demos)              ├─ Engine as a live screen would,
//	  synthetic runs (SyntheticRuns:      │  and hands Score the hints
//	    files in the formats users keep,  │
//	    recordings for what only gputop   │
//	    records, the truth second by      │
//	    second)                           │
//	                                      ▼
//	Score(case, answers) ─▶ Outcome ─▶ Tally ─▶ Markdown (docs/accuracy.md)
//
// The package reads no file and no clock: the corpus is data and code, the
// generator is seeded, so the same tree writes the same document byte for
// byte. Its test (accuracy_test.go) drives the importers and the demo,
// which this package may not import (arch_test.go), and fails when a
// published figure drops, naming the cases lost; scripts/accuracy.sh
// rewrites the document.
package accuracy
