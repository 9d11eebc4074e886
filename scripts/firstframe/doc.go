// Command firstframe measures a terminal program's first frame: the time
// from its start on a pseudo-terminal until a text is written there.
//
//	go run ./scripts/firstframe -size 120x40 -text GPU7 -- ./gputop replay day.gtr
//
// scripts/bench.sh measures gputop's first frames with it. Polling a tmux
// pane instead reads the polling as much as the frame: on a slow virtual
// machine each capture-pane takes longer than the frame it waits for.
// Linux only.
package main
