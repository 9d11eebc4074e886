package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui"
)

func cmdRecord(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	out := fs.String("o", "", "write the recording to `FILE` (required)")
	duration := fs.Duration("duration", 0, "stop after this long (default: until Ctrl-C or SIGTERM)")
	interval := fs.Duration("interval", time.Second, "time between samples (at least 100ms)")
	var demo demoFlag
	fs.Var(&demo, "demo", "record 8 simulated H100s playing `SCENARIO`: "+strings.Join(probes.Scenarios, ", "))
	fast := fs.Bool("fast", false, "with --demo: run the simulated clock as fast as it goes")
	force := fs.Bool("force", false, "overwrite FILE if it exists")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(rest) > 0:
		return usageError{fmt.Sprintf("unexpected argument %q", rest[0])}
	case *out == "":
		return usageError{"-o FILE is required"}
	case *fast && demo.scenario == "":
		return usageError{"--fast runs a demo's simulated clock; it needs --demo"}
	case *fast && *duration <= 0:
		return usageError{"--fast needs --duration: simulated time never ends by itself"}
	case *duration < 0:
		return usageError{"--duration must be positive"}
	}
	if err := checkInterval(*interval); err != nil {
		return err
	}
	if err := checkNewFile(*out, *force); err != nil {
		return err
	}
	log.SetOutput(io.Discard)

	start := time.Now()
	var clock probes.Clock = probes.RealClock{}
	if *fast {
		clock = probes.NewFastClock(start.Truncate(time.Second))
	}
	sess, err := probes.OpenSession(probes.SessionConfig{Interval: *interval, Demo: demo.scenario, Seed: 1, Clock: clock})
	if err != nil {
		return err
	}
	defer sess.Close()
	for _, n := range sess.Info().Notes {
		fmt.Fprintf(os.Stderr, "note: %s\n", n)
	}
	w, err := recordings.Create(*out, recordingHeader(sess.Info(), clock.Now()), *force)
	if err != nil {
		return err
	}
	// Ctrl-C and SIGTERM end the recording cleanly: the file is closed with
	// its index, and everything sampled is in it.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var n int
	var first, last time.Time
	if *fast {
		n, first, last, err = recordFast(ctx, sess, w, *duration)
	} else {
		n, first, last, err = recordLive(ctx, sess, w, *duration)
	}
	size := fileSize(*out)
	if err != nil {
		return fmt.Errorf("recording stopped: %v (%d samples before it are in %s)", err, n, *out)
	}
	fmt.Fprintf(os.Stderr, "recorded %d samples over %s to %s (%s)\n", n, last.Sub(first).Round(time.Millisecond), *out, size)
	return nil
}

// recordFast writes a fast demo synchronously: there is no screen to keep
// up with, and nothing may be dropped.
func recordFast(ctx context.Context, src timeline.Source, w *recordings.Writer, d time.Duration) (int, time.Time, time.Time, error) {
	var n int
	var first, last time.Time
	tap := newHintTap(src)
	for ctx.Err() == nil {
		s, err := tap.Next(ctx)
		if err != nil {
			break
		}
		if err := w.Write(&s); err != nil {
			w.Close()
			return n, first, last, err
		}
		if hints, ok := tap.changed(); ok {
			if err := w.WriteHints(s.At, hints); err != nil {
				w.Close()
				return n, first, last, err
			}
		}
		if n == 0 {
			first = s.At
		}
		n, last = n+1, s.At
		if last.Sub(first) >= d {
			break
		}
	}
	if n > 0 {
		if err := w.WriteHints(last, tap.hints()); err != nil {
			w.Close()
			return n, first, last, err
		}
	}
	return n, first, last, w.Close()
}

// recordLive samples in real time through a Tee, so a slow disk never makes
// a sample late.
func recordLive(ctx context.Context, src timeline.Source, w *recordings.Writer, d time.Duration) (int, time.Time, time.Time, error) {
	failed := make(chan error, 1)
	tap := newHintTap(src)
	tee := recordings.NewTee(tap, w, func(err error) { failed <- err })
	var n int
	var first, last time.Time
	var err error
loop:
	for {
		s, nextErr := tee.Next(ctx)
		if nextErr != nil {
			if !errors.Is(nextErr, context.Canceled) {
				err = nextErr
			}
			break
		}
		if n == 0 {
			first = s.At
		}
		n, last = n+1, s.At
		if hints, ok := tap.changed(); ok {
			if err = tee.WriteHints(hints); err != nil {
				break loop
			}
		}
		select {
		case err = <-failed:
			break loop
		default:
		}
		if d > 0 && last.Sub(first) >= d {
			break
		}
	}
	if err == nil && n > 0 {
		if hintErr := tee.WriteHints(tap.hints()); hintErr != nil {
			err = hintErr
		}
	}
	if stopErr := tee.Stop(); err == nil {
		err = stopErr
	}
	if dropped := tee.Dropped(); dropped > 0 {
		fmt.Fprintf(os.Stderr, "note: %d samples were dropped while the disk was slow\n", dropped)
		n -= int(dropped)
	}
	return n, first, last, err
}

func fileSize(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return "size unknown"
	}
	return fmt.Sprintf("%.1f kB", float64(st.Size())/1000)
}

func cmdReplay(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	speed := fs.Float64("speed", 1, "playback speed, 0.25 to 64")
	startAt := fs.String("start", "", "start at `TIME`: 14:03, +10m (after the start), -5m (before the end), or a date and time")
	ascii := fs.Bool("ascii", false, "draw with ASCII only, for terminals without Unicode")
	logPath := fs.String("log", defaultLogPath(), "write the log to `FILE` (never to the terminal)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(rest) != 1:
		return usageError{"give one recording to replay"}
	case *speed < 0.25 || *speed > 64:
		return usageError{fmt.Sprintf("--speed %g is out of range: 0.25 to 64", *speed)}
	}
	r, err := recordings.Open(rest[0])
	if err != nil {
		return err
	}
	defer r.Close()
	first, last := r.Span()
	var start time.Time
	if *startAt != "" {
		if start, err = ui.ParseTime(*startAt, first.Local(), first, last); err != nil {
			return usageError{"--start: " + err.Error()}
		}
		if start.Before(first) || start.After(last) {
			return usageError{fmt.Sprintf("--start %s is outside the recording (%s to %s)", *startAt,
				first.Local().Format(time.DateTime), last.Local().Format(time.DateTime))}
		}
	}
	if err := checkTerminal(len(r.Header().Info.GPUs)); err != nil {
		return err
	}
	closeLog, err := openLog(*logPath)
	if err != nil {
		return err
	}
	defer closeLog()
	// A replay keeps every sample at full resolution: a postmortem zooms
	// into hour three as closely as into the last minute. With a day of
	// samples held (about 100 MB for 8 GPUs), Go's default of letting the
	// heap grow to twice what is live would double the footprint; collect
	// sooner instead.
	debug.SetGCPercent(25)
	store := timeline.NewStore(timeline.StoreOptions{RawSamples: 0, Reserve: expectedSamples(r)})
	return runUI(recordings.NewReplay(r), ui.Options{Store: store, Speed: *speed, Start: start, ASCII: *ascii})
}

// expectedSamples estimates a recording's sample count from its span and
// interval, a little over, so its store is sized once.
func expectedSamples(r *recordings.Reader) int {
	first, last := r.Span()
	iv := r.Header().Info.Interval
	if iv <= 0 || !last.After(first) {
		return 0
	}
	return int(float64(last.Sub(first))/float64(iv)*1.05) + 16
}
