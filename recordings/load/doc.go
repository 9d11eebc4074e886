// Package load reads a recording into a store that keeps every sample and
// an Engine that judges them, as gputop report and diff need it: each
// sample derived once, by the Engine, and the store filing what it derived;
// reading, judging and filing each in a goroutine of its own, handing
// batches on in order.
package load
