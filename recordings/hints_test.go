package recordings

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// sameSnapshots reports how got differs from want: times by Equal,
// confidences bit for bit, empty GPU lists and hint sets as nil.
func sameSnapshots(t *testing.T, what string, want, got []HintSnapshot) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d hint snapshots, want %d:\n got %v\nwant %v", what, len(got), len(want), got, want)
	}
	for i := range want {
		sameSnapshot(t, fmt.Sprintf("%s: snapshot %d", what, i), want[i], got[i])
	}
}

func sameSnapshot(t *testing.T, what string, want, got HintSnapshot) {
	t.Helper()
	if !got.At.Equal(want.At) || len(got.Hints) != len(want.Hints) || (len(want.Hints) == 0 && got.Hints != nil) {
		t.Fatalf("%s: at %v with %d hints, want at %v with %d", what, got.At, len(got.Hints), want.At, len(want.Hints))
	}
	for j, w := range want.Hints {
		g := got.Hints[j]
		if g.ID != w.ID || g.Severity != w.Severity || !slices.Equal(g.GPUs, w.GPUs) || (len(w.GPUs) == 0 && g.GPUs != nil) ||
			!g.Start.Equal(w.Start) || !g.End.Equal(w.End) || g.Evidence != w.Evidence || g.Suggestion != w.Suggestion ||
			math.Float64bits(g.Confidence) != math.Float64bits(w.Confidence) ||
			g.Provisional != w.Provisional || g.Ongoing != w.Ongoing || !sameEpisodes(g.Episodes, w.Episodes) {
			t.Fatalf("%s: hint %d is\n%+v, want\n%+v", what, j, g, w)
		}
	}
}

// sameEpisodes compares episodes as the format keeps them: times to the
// nanosecond, nil GPUs for none.
func sameEpisodes(got, want []timeline.Episode) bool {
	if len(got) != len(want) || (len(want) == 0 && got != nil) {
		return false
	}
	for i, w := range want {
		g := got[i]
		if !g.Start.Equal(w.Start) || !g.End.Equal(w.End) || !slices.Equal(g.GPUs, w.GPUs) ||
			(len(w.GPUs) == 0 && g.GPUs != nil) || g.Severity != w.Severity || g.Evidence != w.Evidence ||
			g.Provisional != w.Provisional {
			return false
		}
	}
	return true
}

// hintSet is a set of n hints that differ with seed, as a live view's
// do from one recomputation to the next.
func hintSet(seed, n int) []timeline.Hint {
	ids := []string{timeline.HintInputBound, timeline.HintGPUIdle, timeline.HintPeriodicStall}
	var out []timeline.Hint
	for i := range n {
		end := t0.Add(time.Duration(seed) * time.Second)
		h := timeline.Hint{
			ID:         ids[i%len(ids)],
			Severity:   timeline.Severity(i % 3),
			Start:      end.Add(-time.Duration(30+seed) * time.Second).Add(123456789),
			End:        end,
			Evidence:   fmt.Sprintf("GPU0 0-%d %% for 11 s of every 42 s while CPU 100 %% on one core, 15 idle", seed),
			Suggestion: "Add DataLoader workers (`num_workers`) or pin memory.",
			Confidence: float64(seed%10) / 10,
		}
		if i%2 == 1 {
			h.GPUs = []int{i, i + 1}
		}
		out = append(out, h)
	}
	return out
}

// plannedHints is a snapshot to write after sample after, at its time
// plus offset; or, if info is set, that description instead.
type plannedHints struct {
	after  int
	offset time.Duration
	hints  []timeline.Hint
	info   *timeline.SourceInfo
}

// hintRecording is a recording in memory with hint snapshots.
type hintRecording struct {
	memRecording
	written []HintSnapshot
	// flushed[i] is the file's length once snapshot i was flushed: a file
	// cut at or after it holds the snapshot whole.
	flushed []int64
}

// writeWithHints writes samples at 1 Hz with segments of span sample time,
// and the planned snapshots, in order of after.
func writeWithHints(t testing.TB, ss []timeline.Sample, plan []plannedHints, span time.Duration) hintRecording {
	t.Helper()
	var f memFile
	w, err := newWriter(&f, "mem.gtr", header(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	w.span = span
	var rec hintRecording
	pending := 0 // snapshots written, not yet flushed
	for i := range ss {
		segments := len(w.index.Segments)
		if err := w.Write(&ss[i]); err != nil {
			t.Fatal(err)
		}
		rec.ends = append(rec.ends, w.out.n)
		for ; pending < len(rec.written); pending++ {
			if len(w.index.Segments) > segments { // flushed when the segment ended
				rec.flushed = append(rec.flushed, w.index.Segments[segments].Offset)
			} else {
				rec.flushed = append(rec.flushed, w.out.n)
			}
		}
		for _, p := range plan {
			if p.after == i && p.info != nil {
				if err := w.WriteInfo(*p.info); err != nil {
					t.Fatal(err)
				}
			} else if p.after == i {
				at := ss[i].At.Add(p.offset)
				if err := w.WriteHints(at, p.hints); err != nil {
					t.Fatal(err)
				}
				rec.written = append(rec.written, HintSnapshot{At: at, Hints: p.hints})
			}
		}
	}
	if err := w.Flush(); err != nil { // what Close does first, to see where
		t.Fatal(err)
	}
	for ; pending < len(rec.written); pending++ {
		rec.flushed = append(rec.flushed, w.out.n)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, s := range w.index.Segments {
		rec.segments = append(rec.segments, s.Offset)
	}
	rec.data = f.Bytes()
	return rec
}

// hintPlan spreads snapshots over 45 samples in segments of 20: two at
// one time, one between samples, one right before a segment ends, the
// empty set, none for a whole segment, and one alone in the last chunk.
func hintPlan() (ss []timeline.Sample, plan []plannedHints, span time.Duration) {
	return samples(45, 1), []plannedHints{
		{after: 2, hints: hintSet(2, 2)},
		{after: 2, hints: hintSet(3, 3)},
		{after: 7, offset: 300 * time.Millisecond, hints: hintSet(7, 3)},
		{after: 19, hints: hintSet(19, 1)},
		{after: 30, hints: nil},
		{after: 41, hints: hintSet(41, 2)},
		{after: 44, hints: hintSet(44, 3)},
	}, 20 * time.Second
}

// Snapshots come back as written, interleaved with the samples, across
// segments, each once: the copies carried into new segments are not news
// to a reader that read the segment before.
func TestHintsRoundTrip(t *testing.T) {
	ss, plan, span := hintPlan()
	rec := writeWithHints(t, ss, plan, span)
	if len(rec.segments) != 3 {
		t.Fatalf("want 3 segments, got %d", len(rec.segments))
	}
	r, err := openMem(rec.data)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := range ss {
		s, err := r.Read()
		if err != nil {
			t.Fatalf("sample %d: %v", i, err)
		}
		sameSample(t, i, ss[i], s)
		// Read reads on to the snapshots stamped with the sample's time.
		want, wok := HintsAt(rec.written, s.At)
		got, gok := HintsAt(r.Hints(), s.At)
		if wok != gok {
			t.Fatalf("after sample %d: a current snapshot %v, want %v", i, gok, wok)
		}
		if wok {
			sameSnapshot(t, fmt.Sprintf("after sample %d", i), want, got)
		}
	}
	if _, err := r.Read(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last sample: %v, want io.EOF", err)
	}
	sameSnapshots(t, "read to the end", rec.written, r.Hints())
}

// Hints the format keeps exactly: times to the nanosecond (a start in
// 1678 and an end in 2262 too), any severity, negative and empty GPU
// lists, every confidence from 0 to 1.
func TestHintsExact(t *testing.T) {
	ss := samples(3, 1)
	edge := []timeline.Hint{
		{ID: "", Severity: 255, GPUs: []int{-1, math.MaxInt32}, Start: time.Unix(0, math.MinInt64), End: time.Unix(0, math.MaxInt64),
			Confidence: math.Copysign(0, -1)},
		{ID: "ünïcode ✓", GPUs: []int{}, Start: ss[0].At.Add(1), End: ss[0].At.Add(-1), Confidence: math.Nextafter(1, 0)},
		{ID: timeline.HintMemoryHeadroom, Start: ss[1].At, End: ss[1].At, Confidence: 5e-324, Evidence: "\u00ff\u2603"},
	}
	plan := []plannedHints{{after: 1, hints: edge}, {after: 2, hints: []timeline.Hint{}}}
	rec := writeWithHints(t, ss, plan, time.Minute)
	r, err := openMem(rec.data)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := drain(r); err != nil {
		t.Fatal(err)
	}
	sameSnapshots(t, "edge values", rec.written, r.Hints())
}

// After a seek, the reader holds the snapshot current at the target, read
// from the target's segment alone, and every one after it.
func TestHintsAfterSeek(t *testing.T) {
	ss, plan, span := hintPlan()
	rec := writeWithHints(t, ss, plan, span)
	r, err := openMem(rec.data)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for at := ss[0].At.Add(-2 * time.Second); at.Before(ss[len(ss)-1].At.Add(2 * time.Second)); at = at.Add(250 * time.Millisecond) {
		held := r.Hints() // what a caller holds stays as it was
		heldCopy := slices.Clone(held)
		if err := r.SeekTime(at); err != nil {
			t.Fatal(err)
		}
		s, err := r.Read()
		what := fmt.Sprintf("seek to %v", at.Sub(ss[0].At))
		for _, when := range []time.Time{at, s.At} {
			if err != nil && when.IsZero() {
				continue // past the end: no sample
			}
			want, wok := HintsAt(rec.written, when)
			got, gok := HintsAt(r.Hints(), when)
			if wok != gok {
				t.Fatalf("%s: a snapshot current at %v: %v, want %v", what, when.Sub(ss[0].At), gok, wok)
			}
			if wok {
				sameSnapshot(t, what, want, got)
			}
		}
		if _, err := drain(r); err != nil {
			t.Fatal(err)
		}
		from := 0
		for i, w := range rec.written {
			if !w.At.After(at) {
				from = i
			}
		}
		sameSnapshots(t, what+", then read to the end", rec.written[from:], r.Hints())
		sameSnapshots(t, what+": the snapshots held from before", heldCopy, held)
	}
}

// A file cut at any byte of its last segment, inside a hint record too,
// reads every snapshot flushed before the cut, then says it was cut short.
func TestHintsTornTail(t *testing.T) {
	ss, plan, span := hintPlan()
	rec := writeWithHints(t, ss, plan, span)
	last := rec.segments[len(rec.segments)-1]
	if rec.flushed[len(rec.flushed)-1] <= rec.ends[len(rec.ends)-1] {
		t.Fatal("the last snapshot is not alone in the file's last chunk")
	}
	for cut := last; cut < int64(len(rec.data)); cut++ {
		r, err := openMem(rec.data[:cut])
		if err != nil {
			t.Fatal(err)
		}
		got, err := drain(r)
		wantSamples := 0
		for wantSamples < len(rec.ends) && rec.ends[wantSamples] <= cut {
			wantSamples++
		}
		wantHints := 0
		for wantHints < len(rec.flushed) && rec.flushed[wantHints] <= cut {
			wantHints++
		}
		if len(got) != wantSamples {
			t.Fatalf("cut at %d: %d samples, want %d", cut, len(got), wantSamples)
		}
		sameSnapshots(t, fmt.Sprintf("cut at %d", cut), rec.written[:wantHints], r.Hints())
		wantDamaged(t, fmt.Sprintf("cut at %d", cut), err, ss[wantSamples-1].At)
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWriteHintsRefusals(t *testing.T) {
	ss := samples(3, 1)
	good := hintSet(1, 1)
	bad := func(change func(h *timeline.Hint)) []timeline.Hint {
		hs := hintSet(1, 2)
		change(&hs[1])
		return hs
	}
	var f memFile
	w, err := newWriter(&f, "mem.gtr", header(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteHints(ss[0].At, good); !errors.Is(err, errHintsBeforeSamples) {
		t.Errorf("before the first sample: %v", err)
	}
	if err := w.Write(&ss[0]); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&ss[1]); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		at    time.Time
		hints []timeline.Hint
	}{
		"before the last sample": {ss[1].At.Add(-1), good},
		"at no time":             {time.Time{}, good},
		"NaN confidence":         {ss[1].At, bad(func(h *timeline.Hint) { h.Confidence = math.NaN() })},
		"confidence above 1":     {ss[1].At, bad(func(h *timeline.Hint) { h.Confidence = 1.5 })},
		"negative confidence":    {ss[1].At, bad(func(h *timeline.Hint) { h.Confidence = -0.1 })},
		"no start":               {ss[1].At, bad(func(h *timeline.Hint) { h.Start = time.Time{} })},
		"end after 2262":         {ss[1].At, bad(func(h *timeline.Hint) { h.End = time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC) })},
	} {
		if err := w.WriteHints(c.at, c.hints); err == nil {
			t.Errorf("%s: accepted", name)
		} else if err == w.err {
			t.Errorf("%s: the refusal stopped the recording: %v", name, err)
		}
	}
	// The Writer goes on, and the refused snapshots are not in the file.
	if err := w.WriteHints(ss[1].At, good); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&ss[2]); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteHints(ss[2].At, good); !errors.Is(err, errClosed) {
		t.Errorf("after Close: %v", err)
	}
	r, err := openMem(f.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got, err := drain(r); err != nil || len(got) != 3 {
		t.Fatalf("read back %d samples, %v", len(got), err)
	}
	sameSnapshots(t, "after refusals", []HintSnapshot{{At: ss[1].At, Hints: good}}, r.Hints())
}

func TestHintsAt(t *testing.T) {
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	snaps := []HintSnapshot{
		{At: at(10), Hints: hintSet(1, 1)},
		{At: at(20), Hints: hintSet(2, 1)},
		{At: at(20), Hints: hintSet(3, 1)}, // the set changed twice between two samples
		{At: at(30)},
	}
	for _, c := range []struct {
		at   time.Time
		want int // index in snaps, -1 for none
	}{
		{at(0), -1}, {at(10).Add(-1), -1}, {at(10), 0}, {at(15), 0}, {at(20), 2}, {at(29), 2}, {at(30), 3}, {at(99), 3},
	} {
		got, ok := HintsAt(snaps, c.at)
		if ok != (c.want >= 0) || (ok && got.Hints == nil) != (ok && snaps[c.want].Hints == nil) ||
			(ok && len(got.Hints) > 0 && got.Hints[0].Evidence != snaps[c.want].Hints[0].Evidence) {
			t.Errorf("HintsAt(%v) = %v, %v; want snapshot %d", c.at.Sub(t0), got, ok, c.want)
		}
	}
	if _, ok := HintsAt(nil, at(0)); ok {
		t.Error("HintsAt(nil) found a snapshot")
	}
}
