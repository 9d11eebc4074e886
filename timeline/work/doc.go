// Package work is what a job's progress readings (timeline.Progress: a
// tqdm bar, a "step N" line, a gputop mark) say over a stretch of time: the
// unit the job counts in, the work it did, and its rate. The report's
// WORK AND ENERGY table, the screen's job row and the rules that watch the
// job's progress all read it here, so they say the same figures.
package work
