package recordings

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings/format"
	"github.com/gputop-dev/gputop/timeline"
)

// damageFile is a closed recording of 40 samples at 1 Hz in four segments
// of ten, and where its parts are.
type damageFile struct {
	memRecording
	samples []timeline.Sample
	indexAt int64
}

func newDamageFile(t *testing.T) damageFile {
	t.Helper()
	ss := samples(40, 1)
	rec := writeMem(t, ss, 10*time.Second)
	if len(rec.segments) != 4 {
		t.Fatalf("want 4 segments, got %d", len(rec.segments))
	}
	r, err := openMem(rec.data)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return damageFile{memRecording: rec, samples: ss, indexAt: r.dataEnd}
}

// inChunk is a byte in the middle of sample k's chunk, which holds only
// that sample: k must not be the first of its segment.
func (f damageFile) inChunk(k int) int64 { return (f.ends[k-1] + f.ends[k]) / 2 }

// inSegmentHeader is a byte of segment i's header: its first time.
func (f damageFile) inSegmentHeader(i int) int64 { return f.segments[i] + format.SkippableHeader + 2 }

// clock is how a DamagedError prints a time within a one-day recording.
func clock(t time.Time) string { return t.Local().Format("15:04:05") }

// span is the indexes from..to-1.
func span(from, to int) []int {
	var out []int
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

// Damage in the middle costs the rest of its segment, not the rest of the
// file: reading goes on at the next segment, and the gap is said.
func TestDamageInTheMiddle(t *testing.T) {
	f := newDamageFile(t)
	ss := f.samples
	at := func(i int) time.Time { return ss[i].At }
	for _, c := range []struct {
		name     string
		damage   func(f damageFile) []int64 // bytes to change
		unclosed bool                       // the file ends where its index starts
		cut      int                        // or is cut after this sample's chunk, if not 0
		want     []int                      // the samples read
		gaps     []Gap
		reason   string // DamagedError.Reason
		message  string // what it says, if checked whole
	}{
		{name: "a byte in segment 2 of 4",
			damage: func(f damageFile) []int64 { return []int64{f.inChunk(14)} },
			want:   append(span(0, 14), span(20, 40)...), gaps: []Gap{{at(13), at(20)}},
			message: fmt.Sprintf("mem.gtr: 6s unreadable at %s (damaged); the rest was read", clock(at(14)))},
		{name: "a byte in segment 2 of 4, never closed", unclosed: true,
			damage: func(f damageFile) []int64 { return []int64{f.inChunk(14)} },
			want:   append(span(0, 14), span(20, 40)...), gaps: []Gap{{at(13), at(20)}},
			reason: "not closed (gputop stopped before closing it)",
			message: fmt.Sprintf("mem.gtr: 6s unreadable at %s (damaged); then not closed (gputop stopped before closing it), read up to %s",
				clock(at(14)), clock(at(39)))},
		{name: "segment 2's header",
			damage: func(f damageFile) []int64 { return []int64{f.inSegmentHeader(1)} },
			want:   append(span(0, 10), span(20, 40)...), gaps: []Gap{{at(9), at(20)}}},
		{name: "segment 2's header, never closed", unclosed: true,
			damage: func(f damageFile) []int64 { return []int64{f.inSegmentHeader(1)} },
			want:   append(span(0, 10), span(20, 40)...), gaps: []Gap{{at(9), at(20)}},
			reason: "not closed (gputop stopped before closing it)"},
		{name: "the first segment's header, never closed", unclosed: true,
			damage: func(f damageFile) []int64 { return []int64{f.inSegmentHeader(0)} },
			want:   span(10, 40), gaps: []Gap{{To: at(10)}},
			reason: "not closed (gputop stopped before closing it)"},
		{name: "the first chunk",
			damage: func(f damageFile) []int64 { return []int64{f.ends[0] - 5} },
			want:   span(10, 40), gaps: []Gap{{To: at(10)}},
			message: fmt.Sprintf("mem.gtr: unreadable before %s (damaged); the rest was read", clock(at(10)))},
		{name: "the index, which is scanned instead",
			damage: func(f damageFile) []int64 { return []int64{f.indexAt + format.SkippableHeader + 1} },
			want:   span(0, 40), reason: "index damaged"},
		{name: "the index and segment 2",
			damage: func(f damageFile) []int64 { return []int64{f.indexAt + format.SkippableHeader + 1, f.inChunk(14)} },
			want:   append(span(0, 14), span(20, 40)...), gaps: []Gap{{at(13), at(20)}}, reason: "index damaged"},
		{name: "segments 2 and 4",
			damage: func(f damageFile) []int64 { return []int64{f.inChunk(14), f.inChunk(35)} },
			want:   append(span(0, 14), span(20, 35)...), gaps: []Gap{{at(13), at(20)}, {From: at(34)}},
			reason: "damaged (checksum mismatch)",
			message: fmt.Sprintf("mem.gtr: 6s unreadable at %s (damaged); then damaged (checksum mismatch) at byte %d, read up to %s",
				clock(at(14)), f.segments[3], clock(at(34)))},
		{name: "segments 1 and 3",
			damage: func(f damageFile) []int64 { return []int64{f.inChunk(4), f.inChunk(25)} },
			want:   append(append(span(0, 4), span(10, 25)...), span(30, 40)...), gaps: []Gap{{at(3), at(10)}, {at(24), at(30)}},
			message: fmt.Sprintf("mem.gtr: 2 damaged stretches, 11s unreadable in all, the first at %s; the rest was read", clock(at(4)))},
		{name: "segments 2 and 3, the first sample of 3: one stretch",
			damage: func(f damageFile) []int64 { return []int64{f.inChunk(14), f.ends[20] - 5} },
			want:   append(span(0, 14), span(30, 40)...), gaps: []Gap{{at(13), at(30)}}},
		{name: "segments 2 and 3, later in 3",
			damage: func(f damageFile) []int64 { return []int64{f.inChunk(14), f.inChunk(21)} },
			want:   append(append(span(0, 14), 20), span(30, 40)...), gaps: []Gap{{at(13), at(20)}, {at(20), at(30)}}},
		{name: "segment 2, then cut short in segment 4", cut: 34,
			damage: func(f damageFile) []int64 { return []int64{f.inChunk(14)} },
			want:   append(span(0, 14), span(20, 35)...), gaps: []Gap{{at(13), at(20)}}, reason: "cut short",
			message: fmt.Sprintf("mem.gtr: 6s unreadable at %s (damaged); then cut short, read up to %s", clock(at(14)), clock(at(34)))},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := append([]byte(nil), f.data...)
			for _, at := range c.damage(f) {
				data[at] ^= 0xff
			}
			switch {
			case c.unclosed:
				data = data[:f.indexAt]
			case c.cut > 0:
				data = data[:f.ends[c.cut]+3]
			}
			r, err := openMem(data)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var got []int
			for {
				s, err := r.Read()
				if err != nil {
					checkDamage(t, err, r, c.gaps, c.reason, c.message)
					break
				}
				i := slices.IndexFunc(ss, func(w timeline.Sample) bool { return w.At.Equal(s.At) })
				if i < 0 {
					t.Fatalf("read a sample at %v, which was never written", s.At)
				}
				sameSample(t, i, ss[i], s)
				got = append(got, i)
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("read samples\n%v, want\n%v", got, c.want)
			}
			if _, err := r.Read(); !errors.Is(err, io.EOF) {
				t.Errorf("after the end: %v, want io.EOF", err)
			}
		})
	}
}

// checkDamage checks how reading ended: io.EOF for no damage, else the
// gaps and reason given, in a one-line message (message, if given).
func checkDamage(t *testing.T, err error, r *Reader, gaps []Gap, reason, message string) {
	t.Helper()
	if len(gaps) == 0 && reason == "" {
		if !errors.Is(err, io.EOF) {
			t.Fatalf("end: %v, want io.EOF", err)
		}
		return
	}
	var de *DamagedError
	if !errors.As(err, &de) {
		t.Fatalf("end: %v, want a *DamagedError", err)
	}
	sameGaps(t, de.Gaps, gaps)
	sameGaps(t, r.Gaps(), gaps)
	if de.Reason != reason {
		t.Errorf("Reason %q, want %q", de.Reason, reason)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("message is more than one line: %q", msg)
	}
	if message != "" && msg != message {
		t.Errorf("message\n%s\nwant\n%s", msg, message)
	}
}

func sameGaps(t *testing.T, got, want []Gap) {
	t.Helper()
	if !slices.EqualFunc(got, want, func(g, w Gap) bool { return g.From.Equal(w.From) && g.To.Equal(w.To) }) {
		t.Errorf("gaps\n%v, want\n%v", got, want)
	}
}

// Span of a file that was not closed reaches past damage in the middle,
// and seeks find every good sample around it.
func TestSpanAndSeekAcrossDamage(t *testing.T) {
	f := newDamageFile(t)
	ss := f.samples
	for name, data := range map[string][]byte{"closed": f.data, "never closed": f.data[:f.indexAt]} {
		t.Run(name, func(t *testing.T) {
			data := append([]byte(nil), data...)
			data[f.inChunk(14)] ^= 0xff
			data[f.inSegmentHeader(2)] ^= 0xff
			r, err := openMem(data)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			first, last := r.Span()
			if !first.Equal(ss[0].At) || !last.Equal(ss[39].At) {
				t.Errorf("Span() = %v, %v; want %v, %v", first, last, ss[0].At, ss[39].At)
			}
			var good []timeline.Sample
			good = append(append(good, ss[:14]...), ss[30:]...)
			checkSeeks(t, r, good, func(err error) bool {
				var de *DamagedError
				return errors.Is(err, io.EOF) || errors.As(err, &de)
			})
			// A seek into the gap reads on from the first good sample after
			// it, and says what was lost there: the segment was decoded from
			// its start, so the gap's start is known.
			if err := r.SeekTime(ss[16].At); err != nil {
				t.Fatal(err)
			}
			got, err := drain(r)
			if len(got) != 10 || !got[0].At.Equal(ss[30].At) {
				t.Fatalf("after a seek into the gap: %d samples from %v", len(got), got[0].At)
			}
			var de *DamagedError
			if !errors.As(err, &de) {
				t.Fatalf("after a seek into the gap: %v, want a *DamagedError", err)
			}
			sameGaps(t, de.Gaps, []Gap{{ss[13].At, ss[30].At}})
			// A seek past the gap sees none.
			if err := r.SeekTime(ss[31].At); err != nil {
				t.Fatal(err)
			}
			if _, err := drain(r); err != nil && name == "closed" {
				t.Errorf("after a seek past the gap: %v", err)
			}
			if len(r.Gaps()) != 0 {
				t.Errorf("after a seek past the gap: gaps %v", r.Gaps())
			}
		})
	}
}

// Hints obey the damage too: the snapshots before it are read, none from
// the damaged part, and the first segment after it gives the snapshot
// current there, carried, as after a seek.
func TestHintsAcrossDamage(t *testing.T) {
	ss := samples(40, 1)
	plan := []plannedHints{
		{after: 11, hints: hintSet(11, 2)},
		{after: 16, hints: hintSet(16, 1)}, // in the damaged part of segment 2
		{after: 17, hints: hintSet(17, 3)}, // and the last one before segment 3
		{after: 25, hints: hintSet(25, 2)},
	}
	rec := writeWithHints(t, ss, plan, 10*time.Second)
	for name, closed := range map[string]bool{"closed": true, "never closed": false} {
		t.Run(name, func(t *testing.T) {
			data := append([]byte(nil), rec.data...)
			data[(rec.ends[13]+rec.ends[14])/2] ^= 0xff
			if !closed {
				r, err := openMem(rec.data)
				if err != nil {
					t.Fatal(err)
				}
				data = data[:r.dataEnd]
			}
			r, err := openMem(data)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got, err := drain(r)
			if len(got) != 34 {
				t.Fatalf("read %d samples, want 34", len(got))
			}
			var de *DamagedError
			if !errors.As(err, &de) || len(de.Gaps) != 1 {
				t.Fatalf("end: %v, want a *DamagedError with a gap", err)
			}
			want := []HintSnapshot{rec.written[0], rec.written[2], rec.written[3]}
			sameSnapshots(t, "read past damage", want, r.Hints())
		})
	}
}

func TestDamagedErrorMessage(t *testing.T) {
	day := time.Date(2026, 3, 14, 2, 14, 9, 0, time.Local)
	sec := func(s int) time.Time { return day.Add(time.Duration(s) * time.Second) }
	for _, c := range []struct {
		err  DamagedError
		want string
	}{
		{DamagedError{Path: "run.gtr", Good: sec(100), Interval: time.Second, Gaps: []Gap{{sec(0), sec(13)}}, clock: true},
			"run.gtr: 12s unreadable at 02:14:10 (damaged); the rest was read"},
		{DamagedError{Path: "run.gtr", Good: sec(100), Interval: time.Second, clock: true,
			Gaps: []Gap{{sec(0), sec(13)}, {sec(20), sec(31)}, {sec(40), sec(59)}}},
			"run.gtr: 3 damaged stretches, 40s unreadable in all, the first at 02:14:10; the rest was read"},
		{DamagedError{Path: "run.gtr", Good: sec(400), Interval: time.Second, Gaps: []Gap{{sec(0), sec(302)}}},
			"run.gtr: 5m01s unreadable at 2026-03-14 02:14:10 (damaged); the rest was read"},
		{DamagedError{Path: "run.gtr", Good: sec(100), Gaps: []Gap{{sec(0), sec(12)}}, Reason: "cut short", clock: true},
			"run.gtr: 12s unreadable at 02:14:09 (damaged); then cut short, read up to 02:15:49"},
		{DamagedError{Path: "run.gtr", Good: sec(100), Reason: "cut short", clock: true},
			"run.gtr: recording cut short; read up to 02:15:49"},
		{DamagedError{Path: "run.gtr", Reason: "not closed (gputop stopped before closing it)"},
			"run.gtr: recording not closed (gputop stopped before closing it); no sample could be read"},
		{DamagedError{Path: "run.gtr", Good: sec(100), Interval: time.Second, Gaps: []Gap{{sec(5), sec(6)}}, clock: true},
			"run.gtr: damaged at 02:14:15, no sample lost; the rest was read"},
		{DamagedError{Path: "run.gtr", Good: sec(100), Interval: time.Second, Gaps: []Gap{{To: sec(6)}, {sec(10), sec(15)}}, clock: true},
			"run.gtr: 2 damaged stretches, at least 4s unreadable in all, the first before 02:14:15; the rest was read"},
		{DamagedError{Path: "run.gtr", Good: sec(5), Interval: time.Second, Gaps: []Gap{{sec(5), time.Time{}}},
			Reason: "damaged (checksum mismatch)", Offset: 1234, clock: true},
			"run.gtr: recording damaged (checksum mismatch) at byte 1234; read up to 02:14:14"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("got\n%s\nwant\n%s", got, c.want)
		}
	}
}
