package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"time"

	"github.com/spf13/cobra"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/report/snapshot"
)

func cmdSnapshot(e *env) *cobra.Command {
	c := newCommand("snapshot [--json] [--demo[=SCENARIO]]",
		"one reading of every GPU and the host, printed, then exit",
		"gputop snapshot", "gputop snapshot --json | jq '.gpus[].util'")
	fs := c.Flags()
	asJSON := fs.Bool("json", false, "print JSON (fields in docs/snapshot.md)")
	var demo demoFlag
	demoVar(fs, &demo, "read 8 simulated H100s playing `SCENARIO`: "+scenarioNames)
	c.RunE = func(_ *cobra.Command, rest []string) error {
		if len(rest) > 0 {
			return usageError{fmt.Sprintf("unexpected argument %q", rest[0])}
		}
		log.SetOutput(io.Discard)
		// Two readings a quarter second apart: rates (power from energy, CPU
		// shares) need a difference.
		machine, err := demo.machine(probes.RealClock{})
		if err != nil {
			return err
		}
		sess := probes.OpenSession(probes.SessionConfig{Interval: 250 * time.Millisecond, Machine: machine})
		defer sess.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var readings [2]timeline.Sample
		for i := range readings {
			if readings[i], err = sess.Next(ctx); err != nil {
				return err
			}
		}
		snap := snapshot.New(&readings[1], &readings[0], sess.Info())
		if *asJSON {
			return writeSnapshotJSON(e.stdout, snap)
		}
		return snap.WriteText(e.stdout)
	}
	return c
}

// writeSnapshotJSON writes snap as docs/snapshot.md describes.
func writeSnapshotJSON(w io.Writer, snap snapshot.Snapshot) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(snap)
}
