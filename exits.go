package main

import "fmt"

// Exit codes.
const (
	exitOK    = 0
	exitError = 1 // something failed at run time
	exitUsage = 2 // bad flags or arguments
	exitCheck = 3 // a check for CI failed: report or run --fail-on, diff --fail-if
)

// usageError is bad input on the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// exitStatus is an error that carries the exit code gputop must end with:
// `gputop run` ends with its job's.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }
