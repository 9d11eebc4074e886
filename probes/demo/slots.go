package demo

import "sync"

// The demo's time grid. A script says what each GPU and the host do in each
// slot of 1/6 s, the interval at which an H100 takes its utilization samples,
// and holds it for the whole slot. Everything else follows from that one
// piecewise-constant script: GetSamples returns one sample per slot, gauges
// average the last second's slots, and counters are exact integrals over the
// slots (a slot in progress counts for the part of it that has passed).
//
// Slot boundaries sit on whole microseconds, the unit of NVML's timestamps:
// slot k starts at ceil(k·10⁶/6) µs after the demo began, so slots are 166666
// or 166667 µs long and slotAt(slotStart(k)) == k exactly.
const slotsPerSecond = 6

// slotStart is the start of slot k in µs since the demo began.
func slotStart(k int64) int64 { return (k*1_000_000 + slotsPerSecond - 1) / slotsPerSecond }

// slotAt is the slot that holds us µs since the demo began.
func slotAt(us int64) int64 { return us * slotsPerSecond / 1_000_000 }

// slot is one slot as a script sees it: its index and its span in seconds
// since the demo began.
type slot struct {
	K      int64
	T0, T1 float64
}

func slotOf(k int64) slot {
	return slot{K: k, T0: float64(slotStart(k)) / 1e6, T1: float64(slotStart(k+1)) / 1e6}
}

// covered is the share of the slot that lies inside [a, b): how busy a slot
// is that a burst of work starts or ends in.
func (s slot) covered(a, b float64) float64 {
	lo, hi := max(a, s.T0), min(b, s.T1)
	if hi <= lo {
		return 0
	}
	return (hi - lo) / (s.T1 - s.T0)
}

// ledger keeps running totals of a script over the slot grid (energy,
// PCIe bytes, CPU seconds, and slower state such as temperature), so that a
// counter read at any instant is the exact integral of what was scripted up
// to it. The totals are a pure function of time: they are always summed slot
// by slot from the start in the same order, so two demos that read at
// different instants still agree to the bit wherever they read the same one.
//
// Reads move forward in time, so the ledger keeps a cursor and only adds the
// slots since the last read. A read from the past (never from a sampler, but
// allowed) restarts from the nearest checkpoint kept every markEvery slots.
type ledger[T any] struct {
	add func(k int64, secs float64, t *T) // adds secs seconds of slot k to t

	mu     sync.Mutex
	cursor int64 // acc holds the totals of slots [0, cursor)
	acc    T
	marks  []T // marks[i] holds the totals of slots [0, i·markEvery)
}

// markEvery is about 11 minutes of slots: a day of demo keeps 130 marks.
const markEvery = 4096

func newLedger[T any](initial T, add func(k int64, secs float64, t *T)) *ledger[T] {
	return &ledger[T]{add: add, acc: initial, marks: []T{initial}}
}

// at returns the totals at us µs since the demo began.
func (l *ledger[T]) at(us int64) T {
	us = max(us, 0)
	k := slotAt(us)
	l.mu.Lock()
	defer l.mu.Unlock()
	if k < l.cursor {
		m := k / markEvery
		l.cursor, l.acc = m*markEvery, l.marks[m]
	}
	for l.cursor < k {
		l.add(l.cursor, float64(slotStart(l.cursor+1)-slotStart(l.cursor))/1e6, &l.acc)
		l.cursor++
		if l.cursor%markEvery == 0 && int(l.cursor/markEvery) == len(l.marks) {
			l.marks = append(l.marks, l.acc)
		}
	}
	out := l.acc
	if part := us - slotStart(k); part > 0 {
		l.add(k, float64(part)/1e6, &out)
	}
	return out
}
