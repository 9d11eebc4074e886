package recordings

import (
	"bytes"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// hostileText is what a file written by anyone may hold where gputop shows
// text: a window title, a clipboard write (OSC 52), colours, a cursor move
// and a line break.
const hostileText = "\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\x1b[31mred\x1b[2J\nline"

// Every text a reader hands on has its escape sequences and control
// characters removed, in a file and in a stream: the description, a probe's
// error, a process's user and command line, a marker, a hint.
func TestTextIsCleanedOnRead(t *testing.T) {
	h := header(time.Second)
	h.Info.Host, h.Info.Notes = hostileText, []string{hostileText}
	h.Info.GPUs[0].Name = hostileText
	ss := samples(3, 1)
	ss[1].Probes = append(ss[1].Probes, timeline.ProbeStatus{Probe: "nvml", Device: "gpu0", State: timeline.ProbeFailed, Err: hostileText})
	ss[1].Processes = []timeline.Process{{GPU: 0, PID: 7, User: hostileText, Command: hostileText}}
	ss[1].Markers = []timeline.Marker{{At: ss[1].At, Text: hostileText, Origin: hostileText}}
	var f memFile
	w, err := newWriter(&f, "mem.gtr", h)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ss {
		if err := w.Write(&ss[i]); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			if err := w.WriteHints(ss[1].At, []timeline.Hint{{ID: hostileText, Start: ss[1].At, End: ss[1].At,
				Evidence: hostileText, Suggestion: hostileText, Confidence: 1}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	clean := func(where, s string) {
		t.Helper()
		if s != "red line" {
			t.Errorf("%s: %q, want %q", where, s, "red line")
		}
	}
	check := func(how string, info timeline.SourceInfo, got []timeline.Sample, hints []HintSnapshot) {
		clean(how+" host", info.Host)
		clean(how+" note", info.Notes[0])
		clean(how+" GPU name", info.GPUs[0].Name)
		var found bool
		for _, p := range got[1].Probes {
			if p.State == timeline.ProbeFailed {
				clean(how+" probe error", p.Err)
				found = true
			}
		}
		if !found {
			t.Errorf("%s: the failed probe is gone", how)
		}
		clean(how+" user", got[1].Processes[0].User)
		clean(how+" command", got[1].Processes[0].Command)
		clean(how+" marker", got[1].Markers[0].Text)
		clean(how+" marker origin", got[1].Markers[0].Origin)
		if len(hints) == 0 || len(hints[0].Hints) == 0 {
			t.Fatalf("%s: no hints read", how)
		}
		hint := hints[0].Hints[0]
		clean(how+" hint id", hint.ID)
		clean(how+" evidence", hint.Evidence)
		clean(how+" suggestion", hint.Suggestion)
	}

	r, err := openMem(f.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	got, err := drain(r)
	if err != nil {
		t.Fatal(err)
	}
	check("file", r.Header().Info, got, r.Hints())
	r.Close()

	sr, err := NewStreamReader(bytes.NewReader(f.Bytes()), "stream")
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	var stream []timeline.Sample
	var snaps []HintSnapshot
	for {
		ev, err := sr.Next()
		if err != nil {
			break
		}
		switch ev.Item {
		case StreamSample:
			stream = append(stream, ev.Sample)
		case StreamHints:
			snaps = append(snaps, ev.Hints)
		}
	}
	check("stream", sr.Header().Info, stream, snaps)
}
