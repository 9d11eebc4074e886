package nvidia

import (
	"math"
	"time"
)

// Pace says how often a GPU's probe makes its costly calls. On a real H100
// the bill is the driver's, not gputop's: GetSamples costs 2.0 ms of CPU,
// GetTotalEnergyConsumption 4.4 ms and the health fields' GetFieldValues
// 0.8 ms, while utilisation, power, clocks and temperature cost under 1 µs
// each (docs/real-gpu.md). So each call goes at the pace its value
// changes; docs/nvml.md says why for each.
//
// A zero duration makes the call every tick, with the tick's own values:
// EveryTick is the schedule before pacing, which the tests hold DefaultPace
// against (the same hints, from the same tick, on every demo scenario).
type Pace struct {
	// Samples is how often GetSamples is asked for every utilisation
	// sample since the last it returned: the driver keeps about 14 s of
	// them on an H100 (71 at 200 ms), so none is lost. gpu.util.min and
	// .max are their range over that span, written when they are read;
	// gpu.util each tick is GetUtilizationRates' (under 1 µs). At zero,
	// gpu.util is the mean of the tick's own samples, as before.
	Samples time.Duration
	// Energy is how often the energy counter is read: a check on the
	// integrated power (the report's energy), not a figure of the tick.
	Energy time.Duration
	// Health is how often the health fields that count rare events (ECC,
	// retired pages, remapped rows, PCIe replays, the NVLink error
	// totals), the PCIe link's maximum and, where the driver lacks the
	// state field, the NVLink links' states are read; their last reading
	// holds between. An Xid event has them read on the next tick.
	Health time.Duration
	// Counters is how often the other health fields (violation counters,
	// NVLink data, each link's state and errors: everyTick) are read at
	// intervals shorter than it: on two ticks in a row, since a rate takes
	// two readings. At longer intervals, every tick.
	Counters time.Duration
}

// DefaultPace is the schedule of every session.
var DefaultPace = Pace{Samples: 10 * time.Second, Energy: 2 * time.Minute, Health: 30 * time.Second, Counters: time.Second}

// EveryTick makes every call every tick.
var EveryTick = Pace{}

// paceEarly lets a tick that comes a little early still make a paced call:
// ticks jitter by milliseconds, and a call due at 10 s must not slip to 11.
const paceEarly = 100 * time.Millisecond

// due says whether a call last made at last is due again at now.
func due(last, now time.Time, every time.Duration) bool {
	return every <= 0 || last.IsZero() || now.Sub(last) >= every-paceEarly
}

// PerSecond is how many times a second a call paced every `every` is made
// by a session that ticks every interval: on the first tick at least
// every-paceEarly after the last (every tick for zero).
func PerSecond(every, interval time.Duration) float64 {
	if interval <= 0 {
		return 0
	}
	ticks := 1.0
	if every > 0 {
		ticks = max(1, math.Ceil(float64(every-paceEarly)/float64(interval)))
	}
	return 1 / (ticks * interval.Seconds())
}

// PairsPerSecond is PerSecond for a call made on two ticks in a row every
// `every` (Pace.Counters): every tick when the interval is that long.
func PairsPerSecond(every, interval time.Duration) float64 {
	if every <= 0 || interval <= 0 {
		return PerSecond(0, interval)
	}
	ticks := max(1, math.Ceil(float64(every-paceEarly)/float64(interval)))
	return min(2, ticks) / (ticks * interval.Seconds())
}

// countersDue says whether this tick reads the counting health fields:
// the first tick a pace after the last pair began, and the tick after it.
func (g *gpuProbe) countersDue(now time.Time) bool {
	every := g.n.pace.Counters
	if g.pairNext {
		g.pairNext = false
		return true
	}
	if due(g.countersAt, now, every) {
		g.countersAt, g.pairNext = now, every > 0
		return true
	}
	return false
}

// healthDue says whether this tick reads the event-counting health fields:
// their pace has come, or an Xid asked for them.
func (g *gpuProbe) healthDue(now time.Time) bool {
	asked := g.healthNow.Swap(false)
	if asked || due(g.healthAt, now, g.n.pace.Health) {
		g.healthAt = now
		return true
	}
	return false
}

// energyCheckSpan is the shortest stretch over which the integrated power
// is held against the energy counter: the counter moves in 100 ms steps,
// which over 30 s are 0.3 %; energyCheckOff is the gap, in parts, that is
// noted (the first real run measured 0.01-0.09 % at 1 s).
const (
	energyCheckSpan = 30 * time.Second
	energyCheckOff  = 0.05
)

// integrate adds the power read this tick to the energy since the counter
// was last read: W held over the time since the tick before.
func (g *gpuProbe) integrate(now time.Time, watts float64) {
	if !g.powerAt.IsZero() && !math.IsNaN(watts) && !math.IsNaN(g.powerJ) {
		g.powerJ += watts * now.Sub(g.powerAt).Seconds()
	} else if !g.powerAt.IsZero() {
		g.powerJ = math.NaN() // a tick without power: no check this span
	}
	g.powerAt = now
}

// checkEnergy holds the power integrated since the counter's last reading
// against the counter's difference, and notes once a GPU where they part.
func (g *gpuProbe) checkEnergy(now time.Time, joules float64) {
	span := now.Sub(g.energyRead)
	if !g.energyRead.IsZero() && span >= energyCheckSpan && !math.IsNaN(g.powerJ) && !g.energyNoted {
		counted := joules - g.energyJ
		if counted > 0 && math.Abs(g.powerJ-counted) > energyCheckOff*counted {
			g.energyNoted = true
			g.n.note("%s: energy: the power integrated over %.0f s is %.0f J, the counter's difference %.0f J (%+.1f %%)",
				g.device, span.Seconds(), g.powerJ, counted, 100*(g.powerJ-counted)/counted)
		}
	}
	g.energyRead, g.energyJ, g.powerJ = now, joules, 0
}
