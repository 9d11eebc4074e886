package analysis

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
)

// Synthetic recordings for the hint rules' table tests: a script says what
// each GPU, core and the host read in every second, and htRun evaluates
// the hints over all of it.

// htT0 is the first sample's time: a fixed, whole-minute instant.
var htT0 = time.Date(2025, 7, 27, 12, 0, 0, 0, time.UTC)

const htGiB = 1 << 30

// htTick collects one second's metrics.
type htTick struct {
	sec int
	m   []timeline.Metric
}

func (t *htTick) put(name, device string, v float64) {
	if math.IsNaN(v) {
		return // absent, as a metric the device does not have
	}
	t.m = append(t.m, timeline.Metric{Key: timeline.Key{Name: name, Device: device}, Kind: timeline.Gauge, Value: v})
}

// gpu sets one metric of GPU i.
func (t *htTick) gpu(i int, name string, v float64) { t.put(name, timeline.GPUDevice(i), v) }

// h100 is an H100 as live NVML reads it: utilisation, SM activity, power
// against its 700W limit, memory used of 80GiB; NaN leaves one out.
func (t *htTick) h100(i int, util, sm, power, mem float64) {
	t.gpu(i, timeline.GPUUtil, util)
	t.gpu(i, timeline.GPUSMActive, sm)
	t.gpu(i, timeline.GPUPower, power)
	t.gpu(i, timeline.GPUPowerLimit, 700)
	t.gpu(i, timeline.GPUMemUsed, mem)
	t.gpu(i, timeline.GPUMemTotal, 80*htGiB)
}

// cores sets every host core's busy share and the host CPU their mean.
func (t *htTick) cores(busy ...float64) {
	sum := 0.0
	for i, b := range busy {
		t.put(timeline.CoreBusy, timeline.CoreDevice(i), b)
		sum += b
	}
	t.put(timeline.HostCPU, timeline.HostDevice, sum/float64(len(busy)))
}

// htCoreSet is n cores: the first few at given levels, the rest at rest.
func htCoreSet(n int, rest float64, first ...float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = rest
		if i < len(first) {
			out[i] = first[i]
		}
	}
	return out
}

// NewEngineWith returns an Engine with the given thresholds (zero fields
// take their defaults).
func NewEngineWith(info timeline.SourceInfo, hopts frame.Options, popts PhaseOptions) *Engine {
	e := NewEngine(info)
	e.f.Opts, e.popts = withDefaults(hopts), popts.WithDefaults()
	return e
}

// withDefaults is o with every zero field filled from frame.DefaultOptions
// and a window below 30 s raised to 30 s. Every field is an int, a
// Duration or a float64, and takes its default where it is not above zero
// (NaN too), as setDefault has it.
func withDefaults(o frame.Options) frame.Options {
	d := frame.DefaultOptions()
	v, def := reflect.ValueOf(&o).Elem(), reflect.ValueOf(d)
	for k := range v.NumField() {
		if f := v.Field(k); f.CanInt() && f.Int() <= 0 || f.CanFloat() && !(f.Float() > 0) {
			f.Set(def.Field(k))
		}
	}
	o.Window = max(o.Window, d.Window)
	return o
}

// setDefault makes *v def where it is not above zero (NaN too): a zero
// field of the options takes its default.
func setDefault[T int | time.Duration | float64](v *T, def T) {
	if !(*v > 0) {
		*v = def
	}
}

// WithDefaults fills every zero field from DefaultPhaseOptions.
func (o PhaseOptions) WithDefaults() PhaseOptions {
	d := DefaultPhaseOptions()
	setDefault(&o.Window, d.Window)
	setDefault(&o.MinPhase, d.MinPhase)
	setDefault(&o.BusyUtil, d.BusyUtil)
	setDefault(&o.IdleUtil, d.IdleUtil)
	setDefault(&o.HostBusyCPU, d.HostBusyCPU)
	setDefault(&o.CoreBusyCPU, d.CoreBusyCPU)
	setDefault(&o.JobBusyCPU, d.JobBusyCPU)
	setDefault(&o.IOWaitBusy, d.IOWaitBusy)
	return o
}

// htEngine feeds secs seconds of a script at 1 Hz to an Engine with
// thresholds opts (the defaults without).
func htEngine(secs int, script func(t *htTick), opts ...frame.Options) *Engine {
	o := frame.DefaultOptions()
	if len(opts) > 0 {
		o = opts[0]
	}
	e := NewEngineWith(timeline.SourceInfo{Interval: time.Second}, o, PhaseOptions{})
	for sec := range secs {
		t := &htTick{sec: sec}
		script(t)
		e.Add(new(timeline.Sample{At: htT0.Add(time.Duration(sec) * time.Second)}.WithMetrics(t.m)))
	}
	return e
}

// htRun is the hints over the whole of a script, as gputop report gives
// them.
func htRun(secs int, script func(t *htTick)) []timeline.Hint {
	e := htEngine(secs, script)
	return e.Hints(e.Last())
}

// htFind returns the hints with id.
func htFind(hints []timeline.Hint, id string) []timeline.Hint {
	var out []timeline.Hint
	for _, h := range hints {
		if h.ID == id {
			out = append(out, h)
		}
	}
	return out
}

// htCase is one synthetic recording and what one rule must say about it.
type htCase struct {
	name   string
	secs   int
	script func(t *htTick)
	// gpus are the GPUs the hint must name; nil means the rule must stay
	// silent. The host's hints name no GPU: use []int{}.
	gpus     []int
	severity timeline.Severity
	// evidence and suggestion must contain each of these.
	evidence, suggestion []string
	// maxConfidence, if set, caps the confidence (a rule missing signals).
	maxConfidence float64
	// provisional says the recording is too short for a firm reading:
	// what the rule says (if gpus is set) or anything it says (if not)
	// must be marked provisional. Otherwise the hint must be firm.
	provisional bool
}

// htCheck runs a table of cases for one rule.
func htCheck(t *testing.T, id string, cases []htCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hints := htRun(c.secs, c.script)
			got := htFind(hints, id)
			if c.gpus == nil {
				if c.provisional {
					got = slices.DeleteFunc(got, func(h timeline.Hint) bool { return h.Provisional })
				}
				if len(got) > 0 {
					t.Fatalf("%s fired, want silence:\n%s", id, htDump(got))
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("want one %s hint, got %d; all hints:\n%s", id, len(got), htDump(hints))
			}
			h := got[0]
			if h.Provisional != c.provisional {
				t.Errorf("provisional %v, want %v", h.Provisional, c.provisional)
			}
			if !slices.Equal(h.GPUs, c.gpus) && !(len(h.GPUs) == 0 && len(c.gpus) == 0) {
				t.Errorf("GPUs %v, want %v", h.GPUs, c.gpus)
			}
			if h.Severity != c.severity {
				t.Errorf("severity %v, want %v", h.Severity, c.severity)
			}
			for _, want := range c.evidence {
				if !strings.Contains(h.Evidence, want) {
					t.Errorf("evidence %q lacks %q", h.Evidence, want)
				}
			}
			for _, want := range c.suggestion {
				if !strings.Contains(h.Suggestion, want) {
					t.Errorf("suggestion %q lacks %q", h.Suggestion, want)
				}
			}
			if !(h.Confidence > 0 && h.Confidence <= 1) {
				t.Errorf("confidence %v outside (0, 1]", h.Confidence)
			}
			if c.maxConfidence > 0 && h.Confidence > c.maxConfidence {
				t.Errorf("confidence %v, want at most %v", h.Confidence, c.maxConfidence)
			}
			if !h.End.After(h.Start) || h.Start.Before(htT0) || h.End.After(htT0.Add(time.Duration(c.secs+1)*time.Second)) {
				t.Errorf("span %v to %v outside the recording", h.Start, h.End)
			}
		})
	}
}

func htDump(hints []timeline.Hint) string {
	var b strings.Builder
	for _, h := range hints {
		b.WriteString("  " + h.Severity.String() + " " + h.ID + " " + units.GPUs(h.GPUs) + " " +
			h.Start.Sub(htT0).String() + "-" + h.End.Sub(htT0).String() + ": " + h.Evidence + "\n")
	}
	return b.String()
}

// Patterns the tests share.

// htSawtooth is busy for on seconds of every period.
func htSawtooth(sec, on, period int) bool { return sec%period < on }

// htEvery8 runs fn for GPUs 0-7.
func htEvery8(fn func(i int)) {
	for i := range 8 {
		fn(i)
	}
}

// htHealthy is an 8-GPU run at 95% util, 80% SM activity, 600W, 60GiB.
func htHealthy(t *htTick) {
	htEvery8(func(i int) { t.h100(i, 95, 80, 600, 60*htGiB) })
}

// HeldSince is the start of the oldest column the Engine still holds
// whole; zero if it holds every column.
func (e *Engine) HeldSince() time.Time {
	if e.heldFrom == 0 {
		return time.Time{}
	}
	return e.f.Time(e.heldFrom)
}
