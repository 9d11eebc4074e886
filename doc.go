// Command gputop is a terminal GPU profiler: it shows every GPU and the
// host, live, with history, and says what holds the GPUs back.
//
// Package main only defines the commands, wires the packages together and
// picks exit codes: one file per command (cmd_*.go), each a cobra command
// with its flags (cli.go runs them, flags.go says a mistake in one line),
// the helpers several commands share in files of their own, recording.go for
// what every recording command shares, signals.go for the signals that end
// a session. A command gets its streams, signals and exit from an env, so
// tests run it in-process (commands_test.go) as well as built, in tmux
// (e2e_*_test.go). The hidden commands (nvml-bench, gen-docs) check gputop
// itself on real hardware (docs/real-gpu.md) or write the release's man
// page and completions, and stay out of the usage.
//
//	probes (or probes/demo) ──Source──▶ recordings.Recorder ──▶ ui (the screen) or Run (headless)
//	                                          └──▶ run.gtr
//	run.gtr ──recordings.NewReplay──▶ ui;  run.gtr ──▶ timeline/report ──▶ text, markdown, JSON
//	recordings.Recorder ──<pid>.stream socket──▶ gputop attach (ui), gputop stream (stdout, for --hosts)
//
// docs/architecture.md describes the packages and a sample's journey.
package main
