package main

import (
	"errors"
	"io"

	"github.com/gputop-dev/gputop/probes/remote"
)

// openHostStream decodes a host's `gputop stream`. The stream's reader is
// on branch stream; until it is merged, a host's stream cannot be read.
var openHostStream remote.OpenFeed = func(io.Reader) (remote.Feed, error) {
	return nil, errors.New("this gputop cannot read host streams yet")
}
