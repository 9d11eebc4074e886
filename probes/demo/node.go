package demo

import (
	"fmt"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh100"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/timeline"
)

// Node is a GPU node that is not there: go-nvml's dgxh100 mock server (eight
// H100 80GB) whose metric functions a scenario script drives, a simulated
// host, and the processes the script runs. gputop's real NVML probe reads it
// exactly as it reads a driver.
//
//	scenario script ── per 1/6 s slot ──▶ H100 model ─┬─▶ mock NVML devices ─▶ NVML probe
//	(what the work does)                  (cap, clocks)│    (gauges, samples,
//	                                                   │     counters, GPM)
//	                                      ledgers ─────┘  (exact integrals: energy, bytes, CPU s)
//	                                      host script ───▶ HostProbe, Processes
//
// Everything a Node reports is a pure function of (seed, scenario, GPU, time
// since New) read from its Clock, so it runs the same on a real clock and on
// a probes.FastClock, and two demos with the same seed agree sample for sample.
type Node struct {
	name    string
	seed    int64
	sc      *scenario
	time    demoTime
	server  *server.Server
	lib     *demoLib
	devices []*demoDevice
	host    *demoHost
	procs   *demoProcesses
}

var (
	sDemoUptime = streamOf("demo/uptime")
	sDemoUUID   = streamOf("demo/uuid")
)

// New builds the demo of a scenario (one of Scenarios) from a seed.
// clock.Now() at this call is the demo's time zero.
func New(scenario string, seed int64, clock probes.Clock) (*Node, error) {
	return NewFrom(scenario, seed, clock, 0)
}

// NewFrom is New with the script begun from seconds ago: clock.Now() at
// this call is that far into it (gputop serve --demo-from, to try an alert
// without waiting for the demo's fault). What the script did before, the
// counters have counted; its Xids from before are not delivered, as
// NVML's event set gives none from before it was opened.
func NewFrom(scenario string, seed int64, clock probes.Clock, from time.Duration) (*Node, error) {
	n := newNoise(seed)
	sc, err := buildScenario(scenario, n)
	if err != nil {
		return nil, err
	}
	srv := dgxh100.New()
	if len(srv.Devices) != demoGPUs {
		return nil, fmt.Errorf("demo: go-nvml's dgxh100 mock has %d GPUs, the scripts are written for %d", len(srv.Devices), demoGPUs)
	}
	d := &Node{name: scenario, seed: seed, sc: sc, time: demoTime{clock: clock, start: clock.Now().Add(-max(from, 0))}, server: srv}
	// The driver and host were up for a few days before the demo began:
	// counters start from there, as real ones do.
	uptime := n.between(2, 9, sDemoUptime, 0, 0) * 86400
	for i, dev := range srv.Devices {
		sd, ok := dev.(*server.Device)
		if !ok {
			return nil, fmt.Errorf("demo: go-nvml's dgxh100 mock device %d is a %T, not a *server.Device", i, dev)
		}
		sd.UUID = demoUUID(n, i) // the mock's are random per run
		dd := &demoDevice{Device: sd, gpu: newDemoGPU(i, sc, n, uptime), time: d.time}
		dd.newMIGAnswers()
		if len(sc.mig[i]) > 0 {
			if err := dd.splitMIG(sc.mig[i], n); err != nil {
				return nil, fmt.Errorf("demo: %s: MIG on GPU%d: %w", scenario, i, err)
			}
		}
		d.devices = append(d.devices, dd)
	}
	d.setFuncs()
	d.lib = &demoLib{Server: srv, demo: d}
	d.host = newDemoHost(sc, n, d.time, uptime)
	d.procs = &demoProcesses{demo: d, last: map[int]lookupMark{}}
	return d, nil
}

// demoUUID is a GPU UUID in NVIDIA's format, fixed by the seed.
func demoUUID(n noise, gpu int) string {
	a := mix(n.seed ^ mix(uint64(sDemoUUID)) ^ uint64(gpu))
	b := mix(a)
	return fmt.Sprintf("GPU-%08x-%04x-4%03x-%04x-%012x",
		a>>32, a>>16&0xffff, a&0xfff, 0x8000|b>>48&0x3fff, b&0xffffffffffff)
}

// NVML is the mock server as an nvml.Interface, with every function the
// NVML probe calls set. Hand it to nvidia.OpenNVML.
func (d *Node) NVML() nvml.Interface { return d.lib }

// HostProbe is the simulated host: Name "host", Device "host", the same
// metrics as the real host probe.
func (d *Node) HostProbe() probes.Probe { return d.host }

// Processes answers for the PIDs the script runs on the GPUs.
func (d *Node) Processes() probes.ProcessLookup { return d.procs }

// Hostname is the demo node's name.
func (d *Node) Hostname() string { return "dgx-demo" }

// Machine is the demo as a session samples it (probes.SessionConfig's
// Machine). The session must run on the clock the demo was built with.
func (d *Node) Machine() *probes.Machine {
	var owners probes.Probe
	if len(d.sc.owners) > 0 {
		owners = &demoOwners{owners: d.sc.owners}
	}
	return &probes.Machine{
		Owners:    owners,
		NVML:      d.NVML(),
		Host:      d.HostProbe(),
		Processes: d.Processes(),
		Kind:      timeline.Demo,
		Scenario:  d.name,
		Hostname:  d.Hostname(),
		Note:      "DEMO: " + d.Describe(),
		// The mock's calls cost nothing: each tick keeps its own
		// sub-second range, as the goldens drawn from the demo show.
		EveryTick: true,
	}
}

// Describe says in one line what the scenario shows, what it follows, and
// the seed.
func (d *Node) Describe() string {
	return fmt.Sprintf("%s: %s; seed %d", d.name, d.sc.about, d.seed)
}
