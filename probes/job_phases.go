package probes

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gputop-dev/gputop/probes/marks"
	"github.com/gputop-dev/gputop/probes/progress"
	"github.com/gputop-dev/gputop/timeline"
)

// defaultPhaseRegex recognises the lines common training loops print when
// a phase begins or an event happens, case-insensitively, in the first
// alternative that fits:
//
//	a checkpoint being written, whole line:
//	  "Saving model checkpoint to out/checkpoint-500"          HF Trainer
//	  "saving checkpoint to out"                                nanoGPT
//	  "Epoch 3, global step 2000: ... saving model to 'x.ckpt'" Lightning
//	  "Epoch 1: val_loss improved ..., saving model to m.keras" Keras
//	  "Checkpoint saved to ...", "Saved checkpoint at step 1000"
//	HF Trainer's banners: "***** Running Evaluation *****"   → "Running Evaluation"
//	                      (also Running training, Running Prediction)
//	HF Trainer's evaluation results, whole line: "{'eval_loss': 0.41, ...}"
//	a line starting with Validation/Validating/Evaluation/Evaluating:
//	  "Validation DataLoader 0:  50%|█████ | 10/20"             → "Validation"
//	an evaluation's result, whole line, "... val loss ..." or "validation loss":
//	  "step 500: train loss 1.92, val loss 2.01"                nanoGPT
//	an epoch and its number, as a word after a space, "[", "(", "|", ",",
//	";", ":" or the line's start:
//	  "Epoch 3/10" (Keras), "Epoch 3:  45%|████▌ | 225/500" (Lightning),
//	  "epoch 2 step 400", "Epoch [3/10], Step [100/600]" → "Epoch 3", "epoch 2", ...
//
// It deliberately does not match a line per training step ("iter 100:
// loss 4.2", "step 100 | loss 2.3", HF's "{'loss': 2.1, ..., 'epoch':
// 0.5}", progress bars such as Keras' "469/469 ━━━ 5s 10ms/step - loss:
// ... - val_loss: ..."), which would put thousands of markers on the
// timeline; nor "Loading checkpoint shards", "Num Epochs = 3" or a
// checkpoint path like ".../epoch=3-step=2000.ckpt". Lines that do carry
// a step number along with their epoch ("epoch 2 step 400 loss 1.2", a
// Lightning progress bar redrawn ten times a second) all become the same
// marker text, "epoch 2", and a marker that repeats the one before it is
// dropped (see JobConfig.OnMarker), so such a log gives one marker per
// epoch: when it starts, and again when training resumes after a
// validation.
//
// A tqdm bar whose description is just "Epoch" ("Epoch:  30%|███ | 3/10")
// does not match: its number is a percentage, not the epoch.
//
// DefaultPhases screens lines for the words it needs (phaseWords) first,
// which makes the lines it cannot match some fifty times cheaper.
var defaultPhaseRegex = regexp.MustCompile(`(?i)^(?:` + strings.Join([]string{
	`.*(?:\bsaving\b.*\b(?:checkpoints?|model|weights)|\bcheckpoint saved|\bsaved (?:a |the )?checkpoint)\b`,
	`.*\*{3,}\s*(running (?:training|evaluation|prediction))\s*\*{3,}`,
	`\s*\{\s*['"]eval_`,
	`\W*(validat(?:ion|ing)|evaluat(?:ion|ing))\b`,
	`.*\bval(?:idation)? loss\b`,
	`(?:.*[\s\[(|,;:])?(epoch)\s*[:=#]?\s*[\[(]?\s*(\d+)(?:[^\d%]|$)`,
}, "|") + `)`)

// phaseWords are what every line defaultPhaseRegex matches contains, in
// one case or another. Go's regexp takes microseconds a line for a pattern
// like it, so lines without any of them (most lines of a training log) are
// not shown to it. FuzzPhaseWords checks that this never drops a match.
var phaseWords = []string{"epoch", "sav", "val", "running"}

// mentionsPhaseWord says whether line contains one of phaseWords. The
// long s, U+017F, is an s to (?i) and to this, though not to ToLower.
func mentionsPhaseWord(line string) bool {
	lower := strings.ToLower(line)
	for _, w := range phaseWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return strings.ContainsRune(line, 'ſ')
}

// maxMatchLine is how much of one output line is kept for matching. A
// longer line (a progress bar redrawn without a newline for an hour, a
// tensor dumped on one line) is matched on its start, and the rest is
// passed through without being kept: a phase is named at a line's start,
// and matching costs time in proportion to the length.
const maxMatchLine = 1024

// PhaseRules say which lines of a job's output begin a phase, and what
// the phase is called: a regular expression, and for the default one a
// cheap screen for the words it needs.
type PhaseRules struct {
	re     *regexp.Regexp
	screen func(line string) bool // nil: every line goes to re
}

// DefaultPhases knows the lines common training logs print when a phase
// begins (see defaultPhaseRegex; the README has the table).
func DefaultPhases() *PhaseRules {
	return &PhaseRules{re: defaultPhaseRegex, screen: mentionsPhaseWord}
}

// PhasesFrom makes markers of the lines re matches (see JobConfig.OnMarker
// for the marker's text).
func PhasesFrom(re *regexp.Regexp) *PhaseRules { return &PhaseRules{re: re} }

// phaseMatcher turns lines of the job's output into markers. Each output
// stream has its own lineSplitter; they share the matcher, so a repeated
// marker is dropped whichever stream it comes on.
type phaseMatcher struct {
	rules    *PhaseRules
	onMarker func(text string)

	mu   sync.Mutex
	last string // the previous marker's text
}

func newPhaseMatcher(rules *PhaseRules, onMarker func(string)) *phaseMatcher {
	if onMarker == nil {
		onMarker = func(string) {}
	}
	return &phaseMatcher{rules: rules, onMarker: onMarker}
}

// matchLine makes a marker of line if the regex matches it and it does not
// repeat the previous marker.
func (m *phaseMatcher) matchLine(line []byte) {
	text, ok := markerFor(m.rules, line)
	if !ok {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if text == m.last {
		return
	}
	m.last = text
	m.onMarker(text)
}

// markerFor is the marker text rules make of one output line, if any: the
// capture groups that took part in the match, joined by spaces, or the
// whole line when none did. The line is first cleaned as a terminal would
// show it (see cleanLine), and the text is cut to marks.MaxBytes.
func markerFor(rules *PhaseRules, raw []byte) (string, bool) {
	line := cleanLine(raw)
	if rules.screen != nil && !rules.screen(line) {
		return "", false
	}
	return markerText(rules.re, line)
}

// markerText is markerFor for a line already cleaned.
func markerText(re *regexp.Regexp, line string) (string, bool) {
	loc := re.FindStringSubmatchIndex(line)
	if loc == nil {
		return "", false
	}
	var groups []string
	for i := 2; i+1 < len(loc); i += 2 {
		if loc[i] >= 0 && loc[i+1] > loc[i] {
			groups = append(groups, line[loc[i]:loc[i+1]])
		}
	}
	text := line
	if len(groups) > 0 {
		text = strings.Join(groups, " ")
	}
	text = truncateUTF8(strings.TrimSpace(text), marks.MaxBytes)
	return text, text != ""
}

// cleanLine is the line as text (timeline.CleanText): terminal escape
// sequences (colours, cursor moves) removed, other control characters
// (tab, backspace) turned into spaces, and bytes that are not UTF-8 into
// U+FFFD. So a coloured "\x1b[32mEpoch 3\x1b[0m" matches as "Epoch 3", and
// every marker is text marks.Parse would take.
func cleanLine(line []byte) string { return timeline.CleanText(string(line)) }

// truncateUTF8 cuts s to at most n bytes without splitting a character.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.TrimSpace(s[:n])
}

// lineSplitter cuts one output stream into lines for the matcher. "\r"
// ends a line as "\n" does, because that is how progress bars redraw
// themselves: each redraw is a line to the eye, and one long line to
// anything that waits for "\n".
type lineSplitter struct {
	m   *phaseMatcher // nil: no phase markers
	buf []byte        // the current line so far, up to maxMatchLine bytes
	// progress reads the job's progress from each line, for onProgress;
	// nil: not read (JobConfig.Progress).
	progress   *progress.Parser
	onProgress func(progress.Reading)
}

// feed takes the next bytes of the stream.
func (s *lineSplitter) feed(p []byte) {
	for len(p) > 0 {
		end := bytes.IndexAny(p, "\r\n")
		if end < 0 {
			s.keep(p)
			return
		}
		s.keep(p[:end])
		s.flush()
		p = p[end+1:]
	}
}

func (s *lineSplitter) keep(p []byte) {
	room := maxMatchLine - len(s.buf)
	s.buf = append(s.buf, p[:min(len(p), max(room, 0))]...)
}

// flush matches the line so far; at the end of the stream it is the last
// line, which had no newline.
func (s *lineSplitter) flush() {
	if len(s.buf) > 0 {
		if s.m != nil {
			s.m.matchLine(s.buf)
		}
		if s.progress != nil {
			if r, ok := s.progress.Parse(s.buf); ok {
				s.onProgress(r)
			}
		}
	}
	s.buf = s.buf[:0]
}

// outputTee passes the job's output on byte for byte, as it arrives, and
// shows the matcher what went through.
//
// When the output cannot be passed on any more (the terminal hung up, a
// reader of the pipe exited) it goes on reading and matching, and drops
// the bytes: a job that is shutting down after a hang-up must not block on
// a full pipe nobody reads, nor lose the markers of its last lines.
type outputTee struct {
	dst    io.Writer
	lines  *lineSplitter
	mu     sync.Mutex
	failed error // the first error passing output on
}

func (t *outputTee) Write(p []byte) (int, error) {
	t.mu.Lock()
	failed := t.failed
	t.mu.Unlock()
	if failed == nil {
		n, err := t.dst.Write(p)
		if err == nil && n < len(p) {
			err = io.ErrShortWrite
		}
		if err != nil {
			t.mu.Lock()
			t.failed = err
			t.mu.Unlock()
		}
	}
	t.lines.feed(p)
	return len(p), nil
}
