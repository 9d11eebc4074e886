package nvidia

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"
)

// The bill of a session: how often the probe makes each call MeasureCost
// timed (Schedule), and what that costs a second of one GPU with the costs
// a run on a real driver measured (Predict). Goal (docs/real-gpu.md): at
// most 800 µs of CPU per GPU-second at 1 s, 1,500 at 250 ms, from the
// H100's costs in docs/real-gpu/.

// paceOf says which part of the schedule makes a row's call.
func paceOf(c CallCost) string {
	switch {
	case strings.HasPrefix(c.Call, "gputop: "):
		return "" // the whole Collect: the sum of the calls
	case c.Tier == "procs":
		return "procs"
	case strings.HasPrefix(c.Call, "nvmlDeviceGetMaxPcieLink"):
		return "health" // read again at the health pace
	case c.Tier != "tick":
		return "" // at open, at close, the event watcher's setup
	case strings.HasPrefix(c.Call, "nvmlDeviceGetSamples (since"):
		return "samples"
	case strings.HasPrefix(c.Call, "nvmlDeviceGetSamples"):
		return "" // the whole buffer: the first tick only
	case c.Call == "nvmlDeviceGetTotalEnergyConsumption":
		return "energy"
	case strings.HasPrefix(c.Call, "nvmlDeviceGetFieldValues (health counters"):
		return "counters"
	case strings.HasPrefix(c.Call, "nvmlDeviceGetFieldValues (health"):
		return "health"
	}
	return "tick"
}

// Schedule sets each row's PerGPUPerS for a session at interval that
// makes the costly calls at pace and runs the process tier every procs.
// The health fields' call asks every field on the ticks the rare-event
// counts are due and the counters alone on the other ticks that read them.
func (r *CostReport) Schedule(interval time.Duration, pace Pace, procs time.Duration) {
	r.Interval = interval.String()
	health := PerSecond(pace.Health, interval)
	for i := range r.Calls {
		c := &r.Calls[i]
		var v float64
		switch paceOf(*c) {
		case "tick":
			v = PerSecond(0, interval)
		case "samples":
			v = PerSecond(pace.Samples, interval)
		case "energy":
			v = PerSecond(pace.Energy, interval)
		case "health":
			v = health
		case "counters":
			v = max(0, PairsPerSecond(pace.Counters, interval)-health)
		case "procs":
			v = 1 / procs.Seconds()
		}
		if c.Skipped != "" {
			v = 0
		}
		c.perSecond, c.PerGPUPerS = v, round3(v)
	}
}

// counted strips the counts from a call's name, which differ between
// devices: "(health, 13 fields)" and "(health, 128 fields)" are one call.
var counted = regexp.MustCompile(`\d+ (fields|metrics)`)

// Predict sets each scheduled row's PredictedCPUUS from the row of the same
// call in costs, and the report's sums. A row of the health counters that
// costs lacks (a run before they were read apart) is priced as the share
// of costs' every-field call that its counter fields are of its fields.
func (r *CostReport) Predict(costs *CostReport, from string) {
	byCall := map[string]CallCost{}
	for _, c := range costs.Calls {
		if c.Skipped == "" && c.Calls > 0 {
			byCall[counted.ReplaceAllString(c.Call, "$1")] = c
		}
	}
	var tick, procs float64
	for i := range r.Calls {
		c := &r.Calls[i]
		if c.PerGPUPerS == nil || *c.PerGPUPerS == 0 {
			continue
		}
		key := counted.ReplaceAllString(c.Call, "$1")
		var us float64
		if cost, ok := byCall[key]; ok {
			us = costOf(cost)
		} else if all, found := byCall[strings.Replace(key, "health counters", "health", 1)]; found && paceOf(*c) == "counters" && all.Fields > 0 {
			us = costOf(all) * float64(all.CounterFields) / float64(all.Fields)
			c.CostNote = fmt.Sprintf("estimated: %d of the %d fields of %q", all.CounterFields, all.Fields, all.Call)
		} else {
			c.CostNote = "no cost measured"
			continue
		}
		v := c.perSecond * us
		c.PredictedCPUUS = round3(v)
		if c.Tier == "procs" {
			procs += v
		} else {
			tick += v
		}
	}
	r.PredictedCPUUS, r.PredictedProcsCPUUS = round3(tick), round3(procs)
	r.CostsFrom = fmt.Sprintf("%s: driver %s, %d GPUs", from, costs.Driver, costs.GPUs)
}

// costOf is a call's CPU µs per call, or its median wall time where the
// run could not tell CPU time.
func costOf(c CallCost) float64 {
	if c.CPUUS != nil {
		return *c.CPUUS
	}
	return c.MedianUS
}

func round3(v float64) *float64 {
	v = math.Round(v*1000) / 1000
	return &v
}
