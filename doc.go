// Command gputop is a terminal GPU profiler: it shows every GPU and the
// host, live, with history, and says what holds the GPUs back.
//
// Package main only parses flags, wires the packages together and picks
// exit codes: one file per command (cmd_*.go), recording.go for
// what every recording command shares, signals.go for the signals that end
// a session. A command gets its streams, signals and exit from an env, so
// tests run it in-process (commands_test.go) as well as built, in tmux
// (e2e_*_test.go). The hidden commands (hiddenCommands, cmd_nvml_bench.go)
// check gputop itself on real hardware (docs/real-gpu.md) and stay out of
// the usage.
//
//	probes (or probes/demo) ──Source──▶ recordings.Recorder ──▶ ui (the screen) or Run (headless)
//	                                          └──▶ run.gtr
//	run.gtr ──recordings.NewReplay──▶ ui;  run.gtr ──▶ timeline/report ──▶ text, markdown, JSON
//	recordings.Recorder ──<pid>.stream socket──▶ gputop attach (ui), gputop stream (stdout, for --hosts)
//
// docs/architecture.md describes the packages and a sample's journey.
package main
