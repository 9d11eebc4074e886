package progress

import (
	"math"
	"testing"
)

// same says whether two readings' numbers agree (NaN equal to NaN), to
// six significant digits, and their units do.
func same(a, b Reading) bool {
	eq := func(x, y float64) bool {
		return math.IsNaN(x) && math.IsNaN(y) || math.Abs(x-y) <= 1e-6*math.Max(1, math.Abs(y))
	}
	return eq(a.Count, b.Count) && eq(a.Total, b.Total) && eq(a.Rate, b.Rate) && a.Unit == b.Unit
}

var NaN = math.NaN()

func TestParseLines(t *testing.T) {
	cases := []struct {
		line string
		want Reading
		ok   bool
	}{
		// tqdm, default bar (tqdm's README).
		{"Epoch 3:  45%|████▌     | 450/1000 [00:09<00:11, 50.00it/s]", Reading{Count: 450, Total: 1000, Rate: 50, Unit: "it"}, true},
		{"100%|██████████| 1000/1000 [00:20<00:00, 49.87it/s]", Reading{Count: 1000, Total: 1000, Rate: 49.87, Unit: "it"}, true},
		{"  0%|          | 0/1000 [00:00<?, ?it/s]", Reading{Count: 0, Total: 1000, Rate: NaN, Unit: "it"}, true},
		{" 10%|█         | 3/30 [00:07<01:05,  2.50s/it]", Reading{Count: 3, Total: 30, Rate: 0.4, Unit: "it"}, true},
		{"123it [00:01, 98.45it/s]", Reading{Count: 123, Total: NaN, Rate: 98.45, Unit: "it"}, true},
		{"1.23kit [00:12, 98.4it/s]", Reading{Count: 1230, Total: NaN, Rate: 98.4, Unit: "it"}, true},
		{"train:  12%|#2        | 1.20k/10.0k [00:12<01:28, 99.9img/s, loss=0.31]", Reading{Count: 1200, Total: 10000, Rate: 99.9, Unit: "img"}, true},
		{" 50%|█████     | 50/100 [00:01<00:01, 1.2ksamples/s]", Reading{Count: 50, Total: 100, Rate: 1200, Unit: "sample"}, true},
		// Lightning's TQDMProgressBar.
		{"Epoch 0:  45%|████▌     | 450/1000 [00:09<00:11, 50.00it/s, v_num=0, train_loss=0.123]", Reading{Count: 450, Total: 1000, Rate: 50, Unit: "it"}, true},
		// Lightning's RichProgressBar.
		{"Epoch 0/9  ━━━━━━━━━━━━━━━━━━━━━━━━━━ 450/1000 0:00:09 • 0:00:11 50.00it/s v_num: 0 loss: 0.123", Reading{Count: 450, Total: 1000, Rate: 50, Unit: "it"}, true},
		// Keras 2 and 3.
		{"123/500 [======>.......................] - ETA: 10s - loss: 0.3000 - accuracy: 0.9012", Reading{Count: 123, Total: 500, Rate: NaN, Unit: "step"}, true},
		{"500/500 [==============================] - 12s 24ms/step - loss: 0.3000", Reading{Count: 500, Total: 500, Rate: 1000.0 / 24, Unit: "step"}, true},
		{"\x1b[1m123/500\x1b[0m \x1b[32m━━━━━━\x1b[0m\x1b[37m━━━━━━━━━━━━━━\x1b[0m \x1b[1m10s\x1b[0m 21ms/step - accuracy: 0.9 - loss: 0.3", Reading{Count: 123, Total: 500, Rate: 1000.0 / 21, Unit: "step"}, true},
		// Hugging Face Trainer.
		{"{'loss': 0.4567, 'grad_norm': 1.23, 'learning_rate': 4.5e-05, 'epoch': 0.5}", Reading{Count: 0.5, Total: NaN, Rate: NaN, Unit: "epoch"}, true},
		{"{'train_runtime': 123.4, 'train_samples_per_second': 45.6, 'train_steps_per_second': 5.7, 'train_loss': 0.3, 'epoch': 3.0}", Reading{Count: NaN, Total: NaN, Rate: 45.6, Unit: "sample"}, true},
		{"{'eval_loss': 0.41, 'eval_runtime': 2.1, 'eval_samples_per_second': 98.1, 'epoch': 1.0}", Reading{Count: NaN, Total: NaN, Rate: 98.1, Unit: "sample"}, true},
		// Generic lines.
		{"iter 100: loss 4.2134, time 120.50ms, mfu 30.12%", Reading{Count: 100, Total: NaN, Rate: NaN, Unit: "iter"}, true},
		{"step 400 | loss 2.31 | lr 3e-4", Reading{Count: 400, Total: NaN, Rate: NaN, Unit: "step"}, true},
		{"Epoch [3/10], Step [100/600], Loss: 0.2134", Reading{Count: 100, Total: NaN, Rate: NaN, Unit: "step"}, true},
		{"global_step=2000 loss=1.2", Reading{Count: 2000, Total: NaN, Rate: NaN, Unit: "step"}, true},
		{"throughput: 12,345.6 tokens/s", Reading{Count: NaN, Total: NaN, Rate: 12345.6, Unit: "token"}, true},
		{"step 100 | loss 2.3 | tok/s: 45000", Reading{Count: NaN, Total: NaN, Rate: 45000, Unit: "tok"}, true},
		{"[rank0] samples/sec=98.2", Reading{Count: NaN, Total: NaN, Rate: 98.2, Unit: "sample"}, true},
		{"img/s 512 loss 0.1", Reading{Count: NaN, Total: NaN, Rate: 512, Unit: "img"}, true},
		// Not progress.
		{"model.safetensors:  45%|████▌     | 450M/1.00G [00:09<00:11, 50.0MB/s]", Reading{}, false},
		{"Loading checkpoint shards: 100%|██████████| 2/2 [00:05<00:00,  2.51s/it]", Reading{Count: 2, Total: 2, Rate: 1 / 2.51, Unit: "it"}, true},
		{"Loading checkpoint shards: 100%|██████████| 2/2", Reading{Count: 2, Total: 2, Rate: NaN, Unit: "it"}, true},
		{"Epoch 3/10", Reading{}, false},
		{"downloaded 2024/01/02 at 12:00", Reading{}, false},
		{"469/469 bytes copied", Reading{}, false},
		{"the misstep 4 was ignored", Reading{}, false},
		{"steps 400", Reading{}, false},
		{"", Reading{}, false},
		// Hostile numbers are dropped.
		{"step 1e300", Reading{}, false},
		{"99999999999999999999/5 [00:01<00:00, 1e400it/s]", Reading{}, false},
	}
	p := New(nil)
	for _, c := range cases {
		got, ok := p.Parse([]byte(c.line))
		if ok != c.ok || ok && !same(got, c.want) {
			t.Errorf("Parse(%q) = %+v, %v; want %+v, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

func TestParseMark(t *testing.T) {
	cases := []struct {
		text string
		want Reading
		ok   bool
	}{
		{"progress 1200 steps", Reading{Count: 1200, Total: NaN, Rate: NaN, Unit: "step"}, true},
		{"progress 1200", Reading{Count: 1200, Total: NaN, Rate: NaN, Unit: "it"}, true},
		{"progress 3.5e6 tokens 12000/s", Reading{Count: 3.5e6, Total: NaN, Rate: 12000, Unit: "token"}, true},
		{"progress 7 batches", Reading{Count: 7, Total: NaN, Rate: NaN, Unit: "batch"}, true},
		{"progress report", Reading{}, false}, // a marker
		{"progress -5 steps", Reading{}, false},
		{"progress 1e300 steps", Reading{}, false},
		{"progress 5 steps fast", Reading{}, false},
		{"epoch 3", Reading{}, false},
	}
	for _, c := range cases {
		got, ok := ParseMark(c.text)
		if ok != c.ok || ok && !same(got, c.want) {
			t.Errorf("ParseMark(%q) = %+v, %v; want %+v, %v", c.text, got, ok, c.want, c.ok)
		}
	}
}

func TestCustomPattern(t *testing.T) {
	c, err := NewCustom(`(?P<count>[\d,]+) batches, (?P<rate>[\d.]+) (?P<unit>\w+)/s`, "")
	if err != nil {
		t.Fatal(err)
	}
	got, ok := New(c).Parse([]byte("12,000 batches, 48.5 batch/s"))
	if want := (Reading{Count: 12000, Total: NaN, Rate: 48.5, Unit: "batch"}); !ok || !same(got, want) {
		t.Errorf("custom pattern read %+v, %v; want %+v", got, ok, want)
	}
	if _, err := NewCustom(`(\d+) done`, ""); err == nil {
		t.Error("a pattern without count or rate groups was taken")
	}
	if _, err := NewCustom(`(?P<count>\d+`, ""); err == nil {
		t.Error("a pattern that does not compile was taken")
	}
}
