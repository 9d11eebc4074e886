// Package probe is what a probe is: the Probe interface the sampler
// (probes.Sampler) collects, the Reading a probe returns each tick, and
// the host's view of a process (ProcessInfo, ProcessLookup) that the GPU
// process probe asks for.
//
// It sits below every probe and below probes itself, and imports only
// timeline, so that a probe in a package of its own (probes/nvidia) can
// implement it while probes, whose OpenSession lists that probe, imports
// the probe's package. probes names these types too (probes.Probe is
// probe.Probe), for the commands and the demo.
//
// A new source of metrics is a Probe: a file in probes (host.go, self.go)
// or a package under it (probes/nvidia), listed in OpenSession
// (probes/session.go), or a command's extra probe (SessionConfig.Extra).
package probe
