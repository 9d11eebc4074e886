package demo

import (
	"context"
	"math"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/timeline"
)

// setClock is a clock a test moves anywhere, backwards included.
type setClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *setClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *setClock) SleepUntil(ctx context.Context, t time.Time) error { c.set(t); return ctx.Err() }

func (c *setClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

func (c *setClock) at(d time.Duration) { c.set(demoStart.Add(d)) }

func newTestDemo(t testing.TB, scenario string, seed int64) (*Node, *setClock) {
	t.Helper()
	clock := &setClock{now: demoStart}
	d, err := New(scenario, seed, clock)
	if err != nil {
		t.Fatal(err)
	}
	return d, clock
}

func handle(t testing.TB, d *Node, i int) nvml.Device {
	t.Helper()
	dev, ret := d.NVML().DeviceGetHandleByIndex(i)
	if ret != nvml.SUCCESS {
		t.Fatalf("DeviceGetHandleByIndex(%d): %v", i, ret)
	}
	return dev
}

func TestNewDemoRejectsUnknownScenario(t *testing.T) {
	_, err := New("nope", 1, probes.NewFastClock(demoStart))
	if err == nil {
		t.Fatal("no error for an unknown scenario")
	}
	for _, name := range Scenarios {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not list %q", err, name)
		}
	}
}

func TestEveryScenarioBuildsAndDescribesItself(t *testing.T) {
	if len(scenarioBuilders) != len(Scenarios) {
		t.Errorf("%d builders for %d scenarios", len(scenarioBuilders), len(Scenarios))
	}
	for _, name := range Scenarios {
		d, _ := newTestDemo(t, name, 42)
		desc := d.Describe()
		if !strings.HasPrefix(desc, name+": ") || !strings.HasSuffix(desc, "; seed 42") || strings.Contains(desc, "\n") {
			t.Errorf("Describe() = %q, want one line naming %q and the seed", desc, name)
		}
		// Users see this line; the reports and traces behind a script mean
		// nothing to them.
		for _, internal := range []string{"seed report", "trace", "8xH100"} {
			if strings.Contains(desc, internal) {
				t.Errorf("Describe() = %q cites %q", desc, internal)
			}
		}
		if d.Hostname() == "" {
			t.Error("empty hostname")
		}
		for _, p := range d.sc.procs {
			for _, c := range p.Cores {
				if c < 0 || c >= demoCores {
					t.Errorf("%s: pid %d on core %d of %d", name, p.PID, c, demoCores)
				}
			}
		}
	}
}

var uuidFormat = regexp.MustCompile(`^GPU-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestUUIDsFollowTheSeed(t *testing.T) {
	uuids := func(seed int64) []string {
		d, _ := newTestDemo(t, "training", seed)
		var out []string
		for i := range demoGPUs {
			u, ret := handle(t, d, i).GetUUID()
			if ret != nvml.SUCCESS || !uuidFormat.MatchString(u) {
				t.Fatalf("GetUUID = %q, %v", u, ret)
			}
			if dev, ret := d.NVML().DeviceGetHandleByUUID(u); ret != nvml.SUCCESS || dev != handle(t, d, i) {
				t.Errorf("DeviceGetHandleByUUID(%s) does not find gpu%d", u, i)
			}
			out = append(out, u)
		}
		return out
	}
	a, b, c := uuids(1), uuids(1), uuids(2)
	seen := map[string]bool{}
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("gpu%d: UUID %s then %s for the same seed", i, a[i], b[i])
		}
		if a[i] == c[i] {
			t.Errorf("gpu%d: same UUID %s for seeds 1 and 2", i, a[i])
		}
		if seen[a[i]] {
			t.Errorf("UUID %s twice", a[i])
		}
		seen[a[i]] = true
	}
}

// Two demos with the same seed record the same metrics and processes,
// whatever the order the per-GPU goroutines ran in; another seed differs.
func TestSameSeedSameRecording(t *testing.T) {
	for _, name := range Scenarios {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a, b, c := recordDemo(t, name, 5, 90), recordDemo(t, name, 5, 90), recordDemo(t, name, 6, 90)
			if diff := firstDifference(a, b); diff != "" {
				t.Errorf("same seed: %s", diff)
			}
			if firstDifference(a, c) == "" {
				t.Error("seeds 5 and 6 recorded the same thing")
			}
		})
	}
}

func firstDifference(a, b *demoRun) string {
	for i := range a.samples {
		sa, sb := a.samples[i], b.samples[i]
		if !sa.At.Equal(sb.At) || sa.Len() != sb.Len() {
			return "tick " + sa.At.String() + ": different layout"
		}
		for j, m := range sa.Metrics() {
			n := sb.Metric(j)
			if m.Key != n.Key || math.Float64bits(m.Value) != math.Float64bits(n.Value) {
				return "tick " + sa.At.String() + ": " + m.Key.String() + " differs"
			}
		}
		if len(sa.Processes) != len(sb.Processes) {
			return "tick " + sa.At.String() + ": process lists differ"
		}
		for j, p := range sa.Processes {
			q := sb.Processes[j]
			if p.PID != q.PID || p.Command != q.Command || math.Float64bits(p.CPU) != math.Float64bits(q.CPU) ||
				math.Float64bits(p.Util) != math.Float64bits(q.Util) || p.GPUMem != q.GPUMem {
				return "tick " + sa.At.String() + ": process differs"
			}
		}
	}
	return ""
}

// A value depends on when it is read, never on what was read before: a
// counter read once at 10 minutes equals the same counter read every
// second up to then, and reading back in time gives the earlier answers.
func TestValuesArePureFunctionsOfTime(t *testing.T) {
	type reading struct {
		power, temp, clock uint32
		energy, reasons    uint64
	}
	read := func(dev nvml.Device) reading {
		var r reading
		r.energy, _ = dev.GetTotalEnergyConsumption()
		r.temp, _ = dev.GetTemperature(nvml.TEMPERATURE_GPU)
		r.power, _ = dev.GetPowerUsage()
		r.clock, _ = dev.GetClockInfo(nvml.CLOCK_SM)
		r.reasons, _ = dev.GetCurrentClocksEventReasons()
		return r
	}
	instants := []time.Duration{3 * time.Second, 61500 * time.Millisecond, 10 * time.Minute, 47 * time.Minute}

	sparse, sc := newTestDemo(t, "throttle", 9)
	want := map[time.Duration]reading{}
	for _, at := range instants {
		sc.at(at)
		want[at] = read(handle(t, sparse, 4))
	}

	dense, dc := newTestDemo(t, "throttle", 9)
	for s := time.Duration(0); s <= 47*time.Minute; s += time.Second {
		dc.at(s)
		read(handle(t, dense, 4))
	}
	for i := len(instants) - 1; i >= 0; i-- { // backwards, across ledger checkpoints
		dc.at(instants[i])
		if got := read(handle(t, dense, 4)); got != want[instants[i]] {
			t.Errorf("at %v: %+v after reading every second and going back, %+v read directly", instants[i], got, want[instants[i]])
		}
	}
}

// The NVML probe reads the eight GPUs from eight goroutines at once; the
// race detector checks the demo's shared state (ledgers, GPM samples).
func TestConcurrentReadsAgreeWithSerialReads(t *testing.T) {
	serial, sclock := newTestDemo(t, "checkpoint", 3)
	parallel, pclock := newTestDemo(t, "checkpoint", 3)
	sclock.at(90 * time.Second)
	pclock.at(90 * time.Second)
	want := make([]uint64, demoGPUs)
	for g := range want {
		want[g], _ = handle(t, serial, g).GetTotalEnergyConsumption()
	}
	var wg sync.WaitGroup
	for g := range demoGPUs {
		for range 4 {
			wg.Go(func() {
				dev := handle(t, parallel, g)
				s, _ := parallel.NVML().GpmSampleAlloc()
				dev.GpmSampleGet(s)
				dev.GetSamples(nvml.GPU_UTILIZATION_SAMPLES, 0)
				e, _ := dev.GetTotalEnergyConsumption()
				if _, err := parallel.HostProbe().Collect(context.Background()); err != nil {
					t.Error(err)
				}
				parallel.Processes().Lookup(4100 + g)
				if e != want[g] {
					t.Errorf("gpu%d: energy %d read concurrently, %d serially", g, e, want[g])
				}
			})
		}
	}
	wg.Wait()
}

func TestProcessLookup(t *testing.T) {
	d, clock := newTestDemo(t, "cpu-fallback", 1)
	procs := d.Processes()
	if _, ok := procs.Lookup(1); ok {
		t.Error("found a PID the script does not run")
	}
	first, ok := procs.Lookup(4100)
	if !ok || first.User != "ml" || !strings.Contains(first.Command, "train_jade_pretrain.py") || !math.IsNaN(first.CPU) || first.RSS <= 0 {
		t.Fatalf("first lookup %+v, want the job with CPU unknown (NaN)", first)
	}
	clock.at(5 * time.Second)
	later, _ := procs.Lookup(4100)
	// The job's CPU is its cores' busy time: the pegged core and its BLAS threads.
	want := timeMean(0, 5e6, func(k int64) float64 {
		var h hostLoad
		d.sc.host(slotOf(k), &h)
		var busy float64
		for _, c := range d.sc.procs[0].Cores {
			busy += h.Core[c]
		}
		return busy
	})
	if math.Abs(later.CPU-want) > 1e-9 {
		t.Errorf("CPU since the last lookup %.3f %%, want %.3f", later.CPU, want)
	}
	if again, _ := procs.Lookup(4100); again.CPU != later.CPU {
		t.Errorf("asked again at the same instant: %v, then %v", later.CPU, again.CPU)
	}
}

func TestHostProbeIdentity(t *testing.T) {
	d, _ := newTestDemo(t, "training", 1)
	if p := d.HostProbe(); p.Name() != "host" || p.Device() != timeline.HostDevice {
		t.Errorf("host probe %q/%q, want host/host", p.Name(), p.Device())
	}
}
