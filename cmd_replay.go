package main

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/recordings/load"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui"
	"github.com/gputop-dev/gputop/ui/playback"
)

// A replay hands the screen many samples at a time, so a day-long file
// loads in a few dozen steps: the screen finds that out by a type
// assertion, so make sure of it here.
var _ ui.BatchSource = loadedReplay{}

func cmdReplay(e *env) *cobra.Command {
	c := newCommand("replay FILE [--speed X] [--start T]",
		"replay a recording in the same screen, with a transport",
		"gputop replay run.gtr", "gputop replay run.gtr --speed 8 --start +30m")
	fs := c.Flags()
	speed := fs.Float64("speed", 1, "playback speed, 0.25 to 64")
	startAt := fs.String("start", "", "start at `TIME`: 14:03, +10m (after the start), -5m (before the end), or a date and time")
	ascii := fs.Bool("ascii", false, "draw with ASCII only, for terminals without Unicode")
	logPath := fs.String("log", defaultLogPath(), "write the log to `FILE` (never to the terminal)")
	c.RunE = func(_ *cobra.Command, rest []string) error {
		switch {
		case len(rest) != 1:
			return usageError{"give one recording to replay"}
		case !(*speed >= 0.25 && *speed <= 64): // NaN too
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
			if start, err = playback.ParseTime(*startAt, first.Local(), first, last); err != nil {
				return badTime("--start", *startAt)
			}
			if start.Before(first) || start.After(last) {
				return usageError{fmt.Sprintf("--start %s is outside the recording (%s to %s)", *startAt,
					first.Local().Format(time.DateTime), last.Local().Format(time.DateTime))}
			}
		}
		settings, closeLog, err := openScreen(*logPath)
		if err != nil {
			return err
		}
		defer closeLog()
		// A replay shows every sample however old: a postmortem zooms into
		// hour three as closely as into the last minute. The store holds the
		// newest hour of them and reads older ones back from the file as the
		// screen asks. With a day's buckets and the analysis's columns held,
		// Go's default of letting the heap grow to twice what is live would
		// double the footprint; collect sooner instead.
		debug.SetGCPercent(15)
		ctx, stopSignals := endOnSignal(e)
		defer stopSignals()
		recall, err := r.Recaller()
		if err != nil {
			return err
		}
		defer recall.Close()
		store := timeline.NewStore(timeline.StoreOptions{RawSamples: timeline.FileRawSamples, RawValues: timeline.RecallRawValues,
			Reserve: load.ExpectedSamples(r), Recall: recall.Recall})
		return runUI(ctx, loadedReplay{recordings.NewReplay(r)}, ui.Options{Store: store, Speed: *speed, Start: start, ASCII: *ascii,
			Settings: settings})
	}
	return c
}

// loadedReplay is a replay that gives the memory its load no longer needs
// back to the system once the file is read: loading a day of 8 GPUs peaks
// at about twice what the screen then holds, and Go would keep the rest.
type loadedReplay struct{ *recordings.Replay }

func (r loadedReplay) NextBatch(ctx context.Context, max int) ([]timeline.Sample, error) {
	ss, err := r.Replay.NextBatch(ctx, max)
	if len(ss) == 0 {
		debug.FreeOSMemory()
	}
	return ss, err
}
