package main

import (
	"io"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/gputop-dev/gputop/packaging/buildinfo"
	"github.com/gputop-dev/gputop/probes"
)

// version and commit are set by the release build with -ldflags
// "-X main.version=... -X main.commit=..."; main fills them from what the
// go command stamped where it did not (buildinfo.Stamp).
var version, commit = devVersion, ""

const devVersion = "0.1.0-dev"

func main() {
	probes.JobGuardMain() // when started as the guard of a gputop run's job, only that
	info, _ := debug.ReadBuildInfo()
	version, commit = buildinfo.Stamp(info, version, devVersion, commit)
	os.Exit(run(os.Args[1:], processEnv()))
}

// env is what a command takes from the process it runs in: its standard
// streams, its signals and its exit. Tests run commands in-process with
// buffers and signals of their own.
type env struct {
	stdin          *os.File
	stdout, stderr io.Writer
	// signals subscribes to endSignals until the returned stop is called.
	signals func() (<-chan os.Signal, func())
	// exit ends the process at once (a second Ctrl-C while closing).
	exit func(code int)
	// watching is called before a command that runs beside the job it
	// watches (see oneProcessor); nil in tests, which share a process.
	watching func()
}

func processEnv() *env {
	return &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, signals: notifyEndSignals, exit: os.Exit,
		watching: oneProcessor}
}

// oneProcessor runs Go code on one processor (GOMAXPROCS=1), as
// node_exporter does by default, unless the environment sets GOMAXPROCS.
// A command that watches a job for hours does a few milliseconds of work a
// second; with a processor per core the runtime wakes more threads for it
// (22 wakes a second against 13 on 2 cores, more on a 128-core node), and
// on a VM each wake is dear: the live demo measured 0.61-0.75 % of a core
// with the default and 0.50-0.55 % with one processor, in the same runs
// (docs/performance.md). A hung NVML call still cannot stop the others: a
// goroutine blocked in C gives up its processor. Setting it also ends the
// runtime's once-a-second look at the CPU affinity and cgroup limit, which
// would only change GOMAXPROCS.
func oneProcessor() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
}
