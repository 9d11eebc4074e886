package main

import "github.com/gputop-dev/gputop/probes/remote"

// openHostStream decodes a host's `gputop stream`.
var openHostStream remote.OpenFeed = remote.OpenStream
