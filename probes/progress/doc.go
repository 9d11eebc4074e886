// Package progress reads a training job's progress from the lines it
// prints: tqdm and tqdm-like bars (PyTorch Lightning's and Rich's
// included), Keras' progress lines, Hugging Face Trainer's log dicts, and
// generic "step N", "iter N", "tokens/s" lines, or a pattern of the user's
// own (--progress-regex). A line gives a Reading: how many units are done
// and/or how many per second, in the job's own unit.
//
// It is pure: no I/O, no clock. The job runner (probes) hands it each
// output line, with "\r" redraws as lines of their own; the Tracker turns
// the readings of one job into the few timeline.Progress points a
// recording keeps (its primary bar, counts made cumulative across bars
// that restart each epoch, one point every few seconds or when the rate
// changes). Every number is outside input: it must be finite,
// non-negative and below MaxValue, or the reading is dropped.
//
// Imported by probes (the job runner, the sampler) and main (gputop mark's
// "progress N unit" lines, the --progress-regex flag).
package progress
