package probes

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gputop-dev/gputop/probes/marks"
)

func TestDefaultPhases(t *testing.T) {
	tests := []struct {
		from, line string
		want       string // the marker; "" for no marker
	}{
		// Lines that begin a phase or record an event.
		{"Keras", "Epoch 3/10", "Epoch 3"},
		{"Keras", "Epoch 3: val_loss did not improve from 0.04870", "Epoch 3"},
		{"Keras", "Epoch 1: val_loss improved from inf to 0.05121, saving model to model.keras",
			"Epoch 1: val_loss improved from inf to 0.05121, saving model to model.keras"},
		{"Keras", "Epoch 00005: ReduceLROnPlateau reducing learning rate to 0.0001.", "Epoch 00005"},
		{"Lightning", "Epoch 3:  45%|████▌     | 225/500 [00:10<00:12, 21.52it/s, v_num=0, train_loss=0.123]", "Epoch 3"},
		{"Lightning", "Validation DataLoader 0:  50%|█████     | 10/20 [00:01<00:01,  8.01it/s]", "Validation"},
		{"Lightning", "Validation: |          | 0/? [00:00<?, ?it/s]", "Validation"},
		{"Lightning", "Epoch 3, global step 2000: 'val_loss' reached 0.12345 (best 0.12345), saving model to '/ckpt/epoch=3-step=2000.ckpt' as top 1",
			"Epoch 3, global step 2000: 'val_loss' reached 0.12345 (best 0.12345), saving model to '/ckpt/epoch=3-step=2000.ckpt' as top 1"},
		{"HF Trainer", "***** Running training *****", "Running training"},
		{"HF Trainer", "***** Running Evaluation *****", "Running Evaluation"},
		{"HF Trainer", "{'eval_loss': 0.4123, 'eval_accuracy': 0.91, 'eval_runtime': 12.3, 'eval_samples_per_second': 81.2, 'epoch': 1.0}",
			"{'eval_loss': 0.4123, 'eval_accuracy': 0.91, 'eval_runtime': 12.3, 'eval_samples_per_second': 81.2, 'epoch': 1.0}"},
		{"HF Trainer", "Saving model checkpoint to ./out/checkpoint-500", "Saving model checkpoint to ./out/checkpoint-500"},
		{"nanoGPT", "step 2000: train loss 1.0312, val loss 1.1040", "step 2000: train loss 1.0312, val loss 1.1040"},
		{"nanoGPT", "saving checkpoint to out", "saving checkpoint to out"},
		{"DeepSpeed", "[2024-05-01 10:00:00,123] [INFO] [engine.py:3091:_save_checkpoint] Saving model checkpoint: /out/global_step100/mp_rank_00_model_states.pt",
			"[2024-05-01 10:00:00,123] [INFO] [engine.py:3091:_save_checkpoint] Saving model checkpoint: /out/global_step100/mp_rank_00_model_states.pt"},
		{"PyTorch tutorial", "Epoch [3/10], Step [100/600], Loss: 0.2314", "Epoch 3"},
		{"fairseq", "2020-01-01 | INFO | train | epoch 003 | loss 4.21 | ppl 18.5", "epoch 003"},
		{"plain loop", "epoch 2 step 400", "epoch 2"},
		{"plain loop", "epoch 2 step 400 loss 1.234", "epoch 2"},
		{"plain loop", "Validation: loss 0.31, acc 0.92", "Validation"},
		{"plain loop", "Evaluating on the test set", "Evaluating"},
		{"plain loop", "epoch=4 loss=0.2", "epoch 4"},
		{"logging prefix", "2024-05-01 10:00:00 INFO:root:Epoch 7", "Epoch 7"},
		{"logging prefix", "[rank0]: Epoch 7", "Epoch 7"},
		{"plain loop", "Checkpoint saved to /ckpt/step_1000", "Checkpoint saved to /ckpt/step_1000"},
		{"plain loop", "Saved checkpoint at step 1000", "Saved checkpoint at step 1000"},

		// Lines printed at every step, or that only mention the words.
		{"nanoGPT", "iter 100: loss 4.2101, time 12.31ms, mfu 30.12%", ""},
		{"HF Trainer", "{'loss': 2.1, 'grad_norm': 1.3, 'learning_rate': 4.9e-05, 'epoch': 0.05}", ""},
		{"HF Trainer", " 45%|████▌     | 450/1000 [01:10<01:25,  6.42it/s]", ""},
		{"HF Trainer", "  Num Epochs = 3", ""},
		{"Keras 3", "469/469 ━━━━━━━━━━━━━━━━━━━━ 5s 10ms/step - accuracy: 0.9712 - loss: 0.1022 - val_accuracy: 0.9801 - val_loss: 0.0512", ""},
		{"Keras 2", "469/469 [==============================] - 5s 10ms/step - loss: 0.1022 - accuracy: 0.9691 - val_loss: 0.0512", ""},
		{"transformers", "Loading checkpoint shards: 100%|██████████| 2/2 [00:03<00:00,  1.61s/it]", ""},
		{"Lightning", "`Trainer.fit` stopped: `max_epochs=10` reached.", ""},
		{"Lightning", "Restoring states from the checkpoint path at /ckpt/epoch=3-step=2000.ckpt", ""},
		{"Lightning", "Sanity Checking DataLoader 0: 100%|██████████| 2/2 [00:00<00:00,  9.5it/s]", ""},
		{"tqdm", "Epoch:  30%|███       | 3/10 [00:30<01:10, 10.0s/it]", ""},
		{"plain loop", "step 100 | loss 2.345 | lr 3.0e-04", ""},
		{"plain loop", "num_epochs: 10", ""},
		{"plain loop", "GPU available: True (cuda), used: True", ""},
	}
	for _, tt := range tests {
		got, ok := markerFor(DefaultPhases(), []byte(tt.line))
		if tt.want == "" && ok {
			t.Errorf("%s: %q made marker %q; want none", tt.from, tt.line, got)
		}
		if tt.want != "" && got != tt.want {
			t.Errorf("%s: %q made %q (%v); want %q", tt.from, tt.line, got, ok, tt.want)
		}
	}
}

func TestMarkerForText(t *testing.T) {
	tests := []struct {
		re, line, want string
	}{
		{`epoch \d+`, "  epoch 3 loss 1.2  ", "epoch 3 loss 1.2"},        // no group: the line, trimmed
		{`(epoch \d+)`, "epoch 3 loss 1.2", "epoch 3"},                   // the group
		{`(train|eval) (start|end)`, "eval end now", "eval end"},         // groups, joined
		{`(warmup)|(cooldown)`, "cooldown begins", "cooldown"},           // only groups that took part
		{`phase(\d*)`, "phase begins", "phase begins"},                   // an empty group counts as none
		{`x`, "\x1b[1;32mx marks\x1b[0m\tthe\bspot", "x marks the spot"}, // escapes gone, controls spaced
		{`.`, strings.Repeat("é", 150), strings.Repeat("é", 100)},        // cut to marks.MaxBytes, whole characters
	}
	for _, tt := range tests {
		got, ok := markerFor(PhasesFrom(regexp.MustCompile(tt.re)), []byte(tt.line))
		if !ok || got != tt.want {
			t.Errorf("%s on %q: %q, %v; want %q", tt.re, tt.line, got, ok, tt.want)
		}
	}
	if got, ok := markerFor(PhasesFrom(regexp.MustCompile(`(\s*)`)), []byte("   ")); ok {
		t.Errorf("blank line made marker %q", got)
	}
}

func TestCleanLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"\x1b[32mgreen\x1b[0m", "green"},
		{"\x1b[2K\x1b[1Gredrawn", "redrawn"},
		{"\x1b]0;window title\x07text", "text"},
		{"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"tab\there", "tab here"},
		{"bad \xff byte", "bad \uFFFD byte"},
		{"cut escape \x1b[", "cut escape "},
		{"\u0085next line", " next line"},
	}
	for _, tt := range tests {
		if got := cleanLine([]byte(tt.in)); got != tt.want {
			t.Errorf("cleanLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// feedAll runs output through a splitter in chunks of the given size and
// returns the markers it made.
func feedAll(re *PhaseRules, output []byte, chunk int) []string {
	var got []string
	s := &lineSplitter{m: newPhaseMatcher(re, func(text string) { got = append(got, text) })}
	for len(output) > 0 {
		n := min(chunk, len(output))
		s.feed(output[:n])
		output = output[n:]
	}
	s.flush()
	return got
}

func TestProgressBarRedrawsMakeOneMarkerPerPhase(t *testing.T) {
	// A Lightning epoch: its bar redrawn with "\r", a validation bar in
	// the middle, and the epoch's bar again until its final newline.
	var out strings.Builder
	for pct := 0; pct <= 50; pct += 10 {
		out.WriteString("\rEpoch 3: " + strings.Repeat("█", pct/10) + "| " + string(rune('0'+pct/10)) + "/5")
	}
	out.WriteString("\n\rValidation DataLoader 0: 0%|\rValidation DataLoader 0: 100%|\r\x1b[2K")
	out.WriteString("\rEpoch 3: 100%|█████| 5/5 [val_loss=0.1]\n\rEpoch 4: 0%|")
	got := feedAll(DefaultPhases(), []byte(out.String()), 7)
	want := []string{"Epoch 3", "Validation", "Epoch 3", "Epoch 4"}
	if !slices.Equal(got, want) {
		t.Errorf("markers %q, want %q", got, want)
	}
}

func TestLineSplitterKeepsOnlyALinesStart(t *testing.T) {
	var got []string
	s := &lineSplitter{m: newPhaseMatcher(DefaultPhases(), func(text string) { got = append(got, text) })}
	s.feed([]byte("Epoch 1 "))
	block := bytes.Repeat([]byte("x"), 64<<10)
	for range 160 { // 10 MB without a newline
		s.feed(block)
		if len(s.buf) > maxMatchLine {
			t.Fatalf("kept %d bytes of one line; at most %d", len(s.buf), maxMatchLine)
		}
	}
	s.feed([]byte("\nEpoch 2\n"))
	if want := []string{"Epoch 1", "Epoch 2"}; !slices.Equal(got, want) {
		t.Errorf("markers %q, want %q", got, want)
	}
}

func FuzzPhaseLines(f *testing.F) {
	f.Add([]byte("Epoch 1/3\nstep 1\rEpoch 1: 50%|\r\nSaving model checkpoint to x\n\x1b[31mEpoch 2"), uint8(3))
	f.Add([]byte("\xff\xfeepoch 9\x00\n{'eval_loss': 1}\n"), uint8(1))
	f.Fuzz(func(t *testing.T, output []byte, chunk uint8) {
		whole := feedAll(DefaultPhases(), output, len(output)+1)
		if pieces := feedAll(DefaultPhases(), output, int(chunk)+1); !slices.Equal(whole, pieces) {
			t.Fatalf("markers depend on how the output arrives: %q at once, %q in %d-byte pieces", whole, pieces, chunk+1)
		}
		for i, text := range whole {
			if again, err := marks.Parse([]byte(text)); err != nil || again != text {
				t.Errorf("marker %q would not pass the socket's check: %q, %v", text, again, err)
			}
			if i > 0 && text == whole[i-1] {
				t.Errorf("marker %q repeated", text)
			}
		}
	})
}

func FuzzPhaseWords(f *testing.F) {
	f.Add("Saving model checkpoint to out")
	f.Add("ſaving model checkpoint to out") // a long s: an s to (?i)
	f.Add("EPOCH 4")
	f.Add("***** Running training *****")
	f.Fuzz(func(t *testing.T, line string) {
		if _, ok := markerText(defaultPhaseRegex, line); ok && !mentionsPhaseWord(line) {
			t.Errorf("defaultPhaseRegex matches %q, which has none of %q", line, phaseWords)
		}
	})
}

// BenchmarkPhaseMatching is the matcher's cost per line of a training log:
// mostly step lines that make no marker, some that do, and a progress bar.
func BenchmarkPhaseMatching(b *testing.B) {
	lines := map[string]string{
		"step line":    "iter 100: loss 4.2101, time 12.31ms, mfu 30.12%",
		"HF log dict":  "{'loss': 2.1, 'grad_norm': 1.3, 'learning_rate': 4.9e-05, 'epoch': 0.05}",
		"epoch bar":    "Epoch 3:  45%|████▌     | 225/500 [00:10<00:12, 21.52it/s, v_num=0, train_loss=0.123]",
		"checkpoint":   "Saving model checkpoint to ./out/checkpoint-500",
		"long line":    strings.Repeat("0.1234, ", maxMatchLine/8),
		"long, custom": strings.Repeat("0.1234, ", maxMatchLine/8),
	}
	for name, line := range lines {
		re := DefaultPhases()
		if strings.Contains(name, "custom") {
			re = PhasesFrom(regexp.MustCompile(`(?i)^\s*(phase \w+)`))
		}
		b.Run(name, func(b *testing.B) {
			raw := []byte(line)
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				markerFor(re, raw)
			}
		})
	}
}
