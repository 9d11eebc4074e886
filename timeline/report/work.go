package report

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/timeline/work"
)

// ReportWork is what the session's GPUs spent, in energy, GPU time and
// money, and, where the job stated its progress, how fast it went and
// what each unit of its work cost. Energy is in every report; the rest
// where there is what it rests on.
type ReportWork struct {
	// Energy is every GPU's energy together, J; kWh is J / 3.6e6.
	Energy Number `json:"energy_j"`
	// EnergySource says how it was measured: "energy counter" (NVML's
	// total energy, exact), "integrated power" (the power readings times
	// the time each stands for), or "energy counter and integrated power"
	// where GPUs differ; "" without power readings.
	EnergySource string `json:"energy_source"`
	// GPUSeconds are the whole GPUs (not MIG instances) times the time
	// sampled: what a GPU-hour price is paid for.
	GPUSeconds Number `json:"gpu_seconds"`
	// Cost is null without a price (--price-kwh, --price-gpu-hour).
	Cost   *ReportCost       `json:"cost"`
	GPUs   []ReportGPUWork   `json:"gpus"`
	Phases []ReportPhaseWork `json:"phases"` // parallel to the report's phases
	// Progress is null when the job stated none.
	Progress *ReportProgress `json:"progress"`
}

// ReportCost is what the energy and the GPU time cost, at the prices
// given (NaN for a price not given, and the costs that need it).
type ReportCost struct {
	PriceKWh     Number `json:"price_kwh"`
	PriceGPUHour Number `json:"price_gpu_hour"`
	Energy       Number `json:"energy"`
	GPUTime      Number `json:"gpu_time"`
	// Total is the energy's and the GPU time's cost together, where both
	// prices are given, else the one that is.
	Total Number `json:"total"`
}

// ReportGPUWork is one GPU's energy.
type ReportGPUWork struct {
	Index  int    `json:"index"`
	Energy Number `json:"energy_j"`
	Source string `json:"energy_source"`
	Cost   Number `json:"energy_cost"` // NaN without --price-kwh
}

// ReportPhaseWork is one phase's energy, GPU time and, with progress, rate.
type ReportPhaseWork struct {
	Energy     Number `json:"energy_j"`
	GPUSeconds Number `json:"gpu_seconds"`
	Cost       Number `json:"cost"` // energy and GPU time at the prices given
	Rate       Number `json:"rate_per_s"`
	Done       Number `json:"done"`
	// EnergyPerUnit is J per unit of the job's work within the phase.
	EnergyPerUnit Number `json:"energy_per_unit_j"`
}

// ReportProgress is the job's own progress over the report.
type ReportProgress struct {
	Unit string `json:"unit"`
	// Done is the work done within the report (NaN where the job stated
	// only rates), Rate the mean rate over it, a unit a second.
	Done Number `json:"done"`
	Rate Number `json:"rate_per_s"`
	// WarmUp is the time from the report's start until the job first
	// reached its working rate (analysis.WarmUp), and WarmUpShare that
	// share of the duration.
	WarmUp      Number `json:"warmup_s"`
	WarmUpShare Number `json:"warmup_share"`
	// Levels are the stretches where the rate held steady: a drop is the
	// start of a slower one.
	Levels []ReportRateLevel `json:"levels"`
	// Per unit of work: the GPUs' energy, J and Wh per 1,000 units, the
	// GPU time, and the cost at the prices given.
	EnergyPerUnit     Number `json:"energy_per_unit_j"`
	WhPerThousand     Number `json:"wh_per_1k_units"`
	GPUSecondsPerUnit Number `json:"gpu_seconds_per_unit"`
	CostPerThousand   Number `json:"cost_per_1k_units"`
}

// ReportRateLevel is a stretch of steady rate.
type ReportRateLevel struct {
	Start Number `json:"start_s"`
	End   Number `json:"end_s"`
	Rate  Number `json:"rate_per_s"`
}

// Sources of a GPU's energy.
const (
	energyCounter = "energy counter"
	energyPower   = "integrated power"
)

// work fills r.Work, after the GPUs and the phases.
func (b *repBuilder) work() {
	w := &b.r.Work
	w.GPUs, w.Phases = []ReportGPUWork{}, make([]ReportPhaseWork, len(b.phases))
	w.Energy, w.GPUSeconds = Number(math.NaN()), Number(math.NaN())
	nan := Number(math.NaN())
	for k := range w.Phases {
		w.Phases[k] = ReportPhaseWork{Energy: nan, GPUSeconds: nan, Cost: nan, Rate: nan, Done: nan, EnergyPerUnit: nan}
	}
	if b.s.Len() == 0 {
		return
	}
	whole := 0
	sources := map[string]bool{}
	for _, g := range b.r.GPUs {
		dev := timeline.GPUDevice(g.Index)
		gw := ReportGPUWork{Index: g.Index, Energy: g.Energy, Cost: b.energyCost(g.Energy)}
		if !g.Energy.Unknown() {
			gw.Source = energyPower
			if b.s.Counted(timeline.Key{Name: timeline.GPUEnergy, Device: dev}) {
				gw.Source = energyCounter
			}
			sources[gw.Source] = true
			w.Energy = Number(timeline.AddKnown(float64(w.Energy), float64(g.Energy)))
		}
		w.GPUs = append(w.GPUs, gw)
		if g.MIGProfile == "" {
			whole++
		}
		for k, e := range b.phaseEnergy[g.Index] {
			if !math.IsNaN(e) {
				w.Phases[k].Energy = Number(timeline.AddKnown(float64(w.Phases[k].Energy), e))
			}
		}
	}
	w.EnergySource = strings.Join(slices.DeleteFunc([]string{energyCounter, energyPower},
		func(s string) bool { return !sources[s] }), " and ")
	sampled := b.sampled(b.from, b.to)
	w.GPUSeconds = Number(float64(whole) * sampled.Seconds())
	for k, p := range b.phases {
		w.Phases[k].GPUSeconds = Number(float64(whole) * b.sampled(p.Start, p.End).Seconds())
		w.Phases[k].Cost = b.cost(w.Phases[k].Energy, w.Phases[k].GPUSeconds)
	}
	if b.opts.PriceKWh > 0 || b.opts.PriceGPUHour > 0 {
		w.Cost = &ReportCost{PriceKWh: b.price(b.opts.PriceKWh), PriceGPUHour: b.price(b.opts.PriceGPUHour),
			Energy: b.energyCost(w.Energy), GPUTime: b.gpuTimeCost(w.GPUSeconds), Total: b.cost(w.Energy, w.GPUSeconds)}
	}
	b.progress()
}

// sampled is the time in [from, to] that samples cover: the span less the
// gaps in sampling.
func (b *repBuilder) sampled(from, to time.Time) time.Duration {
	d := to.Sub(from)
	for _, g := range b.r.Gaps {
		gs, ge := b.from.Add(g.Start.Duration()), b.from.Add(g.End.Duration())
		lo, hi := max(gs.UnixNano(), from.UnixNano()), min(ge.UnixNano(), to.UnixNano())
		d -= time.Duration(max(0, hi-lo))
	}
	return max(d, 0)
}

// progress fills r.Work.Progress and the phases' rates, where the job
// stated its progress.
func (b *repBuilder) progress() {
	ps := b.s.Progress()
	unit := work.Unit(ps)
	if unit == "" {
		return
	}
	w := &b.r.Work
	rate, _ := work.Rate(ps, unit, b.from, b.to)
	p := &ReportProgress{Unit: unit, Done: Number(work.Done(ps, unit, b.from, b.to)), Rate: Number(rate),
		Levels: []ReportRateLevel{}}
	levels := analysis.RateLevels(ps, unit, b.from, b.to)
	for _, l := range levels {
		p.Levels = append(p.Levels, ReportRateLevel{Start: b.rel(l.Start), End: b.rel(l.End), Rate: Number(l.Rate)})
	}
	p.WarmUp, p.WarmUpShare = Number(math.NaN()), Number(math.NaN())
	if len(levels) > 0 {
		warm := analysis.WarmUp(levels, b.from)
		p.WarmUp = Number(warm.Seconds())
		if d := b.to.Sub(b.from); d > 0 {
			p.WarmUpShare = Number(warm.Seconds() / d.Seconds())
		}
	}
	p.EnergyPerUnit = perUnit(w.Energy, p.Done)
	p.WhPerThousand = Number(float64(p.EnergyPerUnit) * 1000 / 3600)
	p.GPUSecondsPerUnit = perUnit(w.GPUSeconds, p.Done)
	p.CostPerThousand = Number(math.NaN())
	if w.Cost != nil {
		p.CostPerThousand = Number(float64(perUnit(w.Cost.Total, p.Done)) * 1000)
	}
	w.Progress = p
	for k, ph := range b.phases {
		done := work.Done(ps, unit, ph.Start, ph.End)
		r, covered := work.Rate(ps, unit, ph.Start, ph.End)
		// A phase the job printed no progress in (a checkpoint between two
		// epochs' bars) has no rate of its own: the readings around it say
		// how fast the phases beside it went.
		quiet := !work.Within(ps, unit, ph.Start, ph.End) && !(done > 0)
		if (covered > 0 || !math.IsNaN(r)) && !quiet {
			w.Phases[k].Rate = Number(r)
		}
		w.Phases[k].Done = Number(done)
		w.Phases[k].EnergyPerUnit = perUnit(w.Phases[k].Energy, w.Phases[k].Done)
	}
}

// perUnit is v per unit of work done; NaN without work.
func perUnit(v, done Number) Number {
	if v.Unknown() || done.Unknown() || done <= 0 {
		return Number(math.NaN())
	}
	return v / done
}

// price is a price given, NaN for one not given.
func (b *repBuilder) price(p float64) Number {
	if p > 0 {
		return Number(p)
	}
	return Number(math.NaN())
}

func (b *repBuilder) energyCost(j Number) Number {
	return Number(float64(j) / 3.6e6 * float64(b.price(b.opts.PriceKWh)))
}

func (b *repBuilder) gpuTimeCost(gpuSeconds Number) Number {
	return Number(float64(gpuSeconds) / 3600 * float64(b.price(b.opts.PriceGPUHour)))
}

// cost is the energy's and the GPU time's cost, either where only one
// price is given; NaN without prices.
func (b *repBuilder) cost(j, gpuSeconds Number) Number {
	e, g := float64(b.energyCost(j)), float64(b.gpuTimeCost(gpuSeconds))
	return Number(timeline.AddKnown(e, g))
}

// integralOf is integral over the values lo to hi: joules from watts.
func (r repSeries) integralOf(lo, hi int) float64 {
	return repSeries{v: r.v[lo:hi], w: r.w[lo:hi]}.integral()
}
