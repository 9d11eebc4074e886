package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"path/filepath"
	"time"

	"github.com/gputop-dev/gputop/probes/marks"
	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// The wiring every recording command shares besides the pipeline
// (pipeline.go) and the local session (local.go): where recordings share
// their socket, and their header.

// shareDir is where a recording's socket goes, for gputop attach: this
// user's runtime directory, private to them, the one attach looks in
// (probes/marks says how it is chosen). Where there is none, recordings
// are not shared.
func shareDir() string {
	dir, _, err := marks.Dir()
	if err != nil {
		log.Printf("recordings will not be attachable: %v", err)
		return ""
	}
	return dir
}

// recordingHeader describes a source in a file that starts at start.
func recordingHeader(info timeline.SourceInfo, start time.Time) recordings.Header {
	return recordings.Header{Version: version, Info: info, Start: start}
}

// liveRecording is the r key's recorder: the first Start records to the
// --record file, if one was given; later ones to a fresh name in the
// working directory. Its messages are the screen's status line: short, and
// without advice about flags, which cannot be given there.
type liveRecording struct {
	rec  *recordings.Recorder
	next string
	// whole is the recording --record began with the session: it holds
	// every sample the screen got, while it goes on (recall).
	whole string
	// closed are the recordings r stopped, said again when gputop exits:
	// the status line that said where they went is long gone by then.
	closed []recordings.Summary
}

// finish stops the recorder when the screen has closed and says where the
// recordings went: those r stopped during the session, then the one still
// open. The terminal is itself again by then (unless it hung up, and nobody
// is there to read it).
func (l *liveRecording) finish(w io.Writer) {
	for _, sum := range l.closed {
		if !sum.Removed {
			fmt.Fprintln(w, summaryLine(sum))
		}
	}
	sum, err := l.rec.Stop()
	reportSummary(w, sum, err)
}

// Start starts recording, to a new file.
func (l *liveRecording) Start() (string, error) {
	path, err := "", error(nil)
	if path = l.next; path != "" {
		l.next, l.whole = "", path
		_, err = l.rec.Start(path)
	} else {
		path, err = startFresh(l.rec, "gputop", time.Now())
	}
	if err != nil {
		return "", fmt.Errorf("cannot create %s: %s", filepath.Base(path), innermost(err))
	}
	return path, nil
}

// recallOf is the live screen's timeline.Recall: what its store let go
// of, read back from the recording --record began with the session, while
// it goes on whole (recordings.Recorder.RecallWhole); nil where there is
// no such recording.
func (l *liveRecording) recallOf() timeline.Recall {
	if l.whole == "" {
		return nil
	}
	return l.rec.RecallWhole(l.whole)
}

// innermost is the cause at the bottom of err: "permission denied", not
// "cannot create recording: open /x/y.gtr: permission denied".
func innermost(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// Stop closes the file and says what it holds, in a few words.
func (l *liveRecording) Stop() (string, error) {
	sum, err := l.rec.Stop()
	if sum.Path != "" {
		l.closed = append(l.closed, sum)
	}
	return summaryLine(sum), err
}

// State says whether it records, to which file, and why it stopped on
// its own, if it did.
func (l *liveRecording) State() (string, bool, error) {
	st := l.rec.State()
	return st.Path, st.On, st.Failed
}

// startFresh starts rec on a file named for prefix and now,
// gputop-20261125-141503.gtr, or with -2, -3, ... when that is taken: r
// pressed twice in a second makes two files, never an error.
func startFresh(rec *recordings.Recorder, prefix string, now time.Time) (string, error) {
	base := prefix + "-" + now.Format("20060102-150405")
	for n := 1; ; n++ {
		path := base + ".gtr"
		if n > 1 {
			path = fmt.Sprintf("%s-%d.gtr", base, n)
		}
		got, err := rec.Start(path)
		if !errors.Is(err, fs.ErrExist) || n >= 100 {
			return got, err
		}
	}
}

// summaryLine says where a recording went and what it holds.
func summaryLine(sum recordings.Summary) string {
	if sum.Path == "" {
		return ""
	}
	if sum.Removed {
		return fmt.Sprintf("no samples were recorded; %s was not kept", sum.Path)
	}
	return fmt.Sprintf("recorded %s to %s (%s, %s)", units.Duration(sum.Last.Sub(sum.First)), sum.Path,
		units.Count(sum.Samples, "sample"), units.Bytes(float64(sum.Bytes)))
}

// reportSummary tells the person at the terminal what a closed recording
// holds, and what went wrong with it.
func reportSummary(w io.Writer, sum recordings.Summary, err error) {
	if line := summaryLine(sum); line != "" {
		fmt.Fprintln(w, line)
	}
	if sum.MarkersLeft > 0 {
		fmt.Fprintf(w, "note: %s left out: more came than the recording could carry\n", units.Count(sum.MarkersLeft, "marker was", "markers were"))
	}
	if sum.Dropped > 0 {
		fmt.Fprintf(w, "note: %s left out while the disk was slow\n", units.Count(int(sum.Dropped), "sample was", "samples were"))
	}
	if sum.Failed != nil {
		fmt.Fprintf(w, "recording stopped early: %v (what came before is readable)\n", sum.Failed)
	}
	if err != nil {
		log.Printf("closing the recording: %v", err)
		fmt.Fprintf(w, "closing the recording: %v\n", err)
	}
}
