package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gputop-dev/gputop/recordings/importer"
	"github.com/gputop-dev/gputop/recordings/importer/prom"
	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/timeline/units"
)

// cmdImportPrometheus is `gputop import prometheus URL|FILE.json`: a
// cluster's GPU history out of Prometheus (or saved answers of its
// query_range API) into one recording of all its hosts.
func cmdImportPrometheus(e *env) *cobra.Command {
	c := newCommand("prometheus URL|FILE.json -o FILE [--from T] [--to T] [--match SELECTOR] [--step 15s]",
		"turn a cluster's GPU series in Prometheus into a recording",
		"gputop import prometheus http://prom:9090 --from -6h --to -2h -o job.gtr",
		"gputop import prometheus answer.json -o job.gtr")
	fs := c.Flags()
	out := fs.StringP("o", "o", "", "write the recording to `FILE` (required)")
	from := fs.String("from", "", "from a URL: the range's start, a `TIME` like 2026-11-24T08:00:00Z, -2h (before now) or now (required)")
	to := fs.String("to", "now", "from a URL: the range's end, a `TIME` as --from")
	match := fs.String("match", "", "from a URL: label matchers picking the job's hosts, a `SELECTOR` like '{job=\"dcgm\",Hostname=~\"node.*\"}' (default every GPU)")
	step := fs.Duration("step", 15*time.Second, "from a URL: the time between points")
	force := fs.Bool("force", false, "overwrite FILE if it exists")
	c.RunE = func(_ *cobra.Command, rest []string) error {
		var err error
		switch {
		case len(rest) != 1:
			return usageError{"import prometheus: give one Prometheus URL or one saved query_range answer (FILE.json)"}
		case *out == "":
			return usageError{"-o FILE is required"}
		}
		source := rest[0]
		fromURL := strings.HasPrefix(source, "http://") || strings.HasPrefix(source, "https://")
		given := map[string]bool{}
		fs.Visit(func(f *pflag.Flag) { given[f.Name] = true })
		var q prom.Query
		if fromURL {
			// Now is read once: -2h and now are the same instant's.
			now := time.Now()
			if !given["from"] {
				return usageError{"--from TIME is required with a Prometheus URL (such as --from -2h)"}
			}
			if q.From, err = parsePromTime("--from", *from, now); err != nil {
				return err
			}
			if q.To, err = parsePromTime("--to", *to, now); err != nil {
				return err
			}
			if !q.From.Before(q.To) {
				return usageError{fmt.Sprintf("the range is empty: --from %s is not before --to %s", q.From.UTC().Format(time.RFC3339), q.To.UTC().Format(time.RFC3339))}
			}
			if *step < time.Millisecond {
				return usageError{fmt.Sprintf("--step %v: must be 1ms or more", *step)}
			}
			if _, err := prom.Selector(*match); err != nil {
				return usageError{"--match " + err.Error()}
			}
			q.URL, q.Match, q.Step = source, *match, *step
		} else {
			for _, name := range []string{"from", "to", "match", "step"} {
				if given[name] {
					return usageError{fmt.Sprintf("--%s is for a Prometheus URL: a saved answer imports whole", name)}
				}
			}
		}
		if err := checkNewFile(*out, *force); err != nil {
			return err
		}
		tmp, err := reserveTemp(*out)
		if err != nil {
			return err
		}
		var res *prom.Result
		if fromURL {
			ctx, stop := endOnSignal(e)
			res, err = prom.Fetch(ctx, q)
			stop()
		} else {
			res, err = readPromFile(source)
		}
		if err != nil {
			os.Remove(tmp)
			var pe *os.PathError
			if fromURL || errors.As(err, &pe) {
				return err // it names its source already
			}
			return fmt.Errorf("%s: %v", source, err)
		}
		if err := writeEach(tmp, *out, recordingHeader(res.Info, res.First), res.Each); err != nil {
			return err
		}
		hosts := ""
		if n := len(res.Info.Hosts); n > 0 {
			hosts = " on " + units.Count(n, "host")
		} else if res.Info.Host != "" {
			hosts = " on " + res.Info.Host
		}
		// MIG slices are GPUs of the recording, but not of the hosts: "of 8
		// GPUs on node1 (GPU0 split into 3 MIG slices)".
		gpus, slices, split := strings.Cut(analysis.GPUNamesOf(res.Info).Split(len(res.Info.GPUs)), ", ")
		if split {
			hosts += " (" + slices + ")"
		}
		fmt.Fprintf(e.stderr, "imported %s of %s%s over %s from %s into %s\n",
			units.Count(res.Samples, "sample"), gpus, hosts,
			units.Duration(res.Last.Sub(res.First)), res.Info.Origin, *out)
		for _, n := range res.Info.Notes {
			printNote(e.stderr, n)
		}
		return nil
	}
	return c
}

func readPromFile(path string) (*prom.Result, error) {
	f, err := importer.OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return prom.Read(f, filepath.Base(path))
}

// parsePromTime reads --from and --to: RFC 3339, Unix seconds, now, or a
// time before now (-2h, -30m, -1d).
func parsePromTime(flagName, s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "now":
		return now, nil
	case strings.HasPrefix(s, "-"):
		d, err := time.ParseDuration(s[1:])
		if days, ok := strings.CutSuffix(s[1:], "d"); ok && err != nil {
			if n, nerr := strconv.ParseFloat(days, 64); nerr == nil && n >= 0 && n < 100*365 {
				d, err = time.Duration(n*24*float64(time.Hour)), nil
			}
		}
		if err == nil && d >= 0 {
			return now.Add(-d), nil
		}
	default:
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t, nil
		}
		if sec, err := strconv.ParseFloat(s, 64); err == nil && sec > 0 && sec < 1e11 {
			return time.UnixMilli(int64(sec * 1000)), nil
		}
	}
	return time.Time{}, usageError{fmt.Sprintf("%s %q is not a time such as 2026-11-24T08:00:00Z, -2h or now", flagName, s)}
}
