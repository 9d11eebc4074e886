package ui

import (
	"strings"

	"github.com/gputop-dev/gputop/timeline"
)

// hostWaiting says what a host of several without a GPU on screen and
// without a word from its connection is waiting for, and whether that is
// a wait rather than a failure: before the session's first sample a host
// is connecting, or says why it failed (the first sample waits until each
// has answered or failed); a host that has described itself without GPUs says so, with
// the reason it gave ("no NVIDIA driver").
func (f *frame) hostWaiting(h int) (text string, waiting bool) {
	name := f.list.Names[h]
	for _, hi := range f.info.Hosts {
		if hi.Name != name || hi.Driver == "" && len(hi.Notes) == 0 {
			continue
		}
		if len(hi.Notes) > 0 {
			return "no GPUs: " + timeline.CleanText(hi.Notes[0]), false
		}
		return "no GPUs", false
	}
	if f.store.Len() == 0 {
		// Before the first sample, which waits for every host: a host that
		// failed already says why (Options.HostStatus).
		if st, ok := f.hostWait[name]; ok && st.State == timeline.ProbeFailed && st.Err != "" {
			return st.Err, false
		}
		return "connecting", true
	}
	return "waiting for its first sample", true
}

// noHostReadings is the host panel's line for a host of several that has
// sent no host readings: its line in the list says why.
func (f *frame) noHostReadings() string {
	name := f.hostName()
	if name == "" {
		return "no host readings yet"
	}
	if h := f.list.Host; h < len(f.drawn.hosts.figs) && f.drawn.hosts.figs[h].Problem != "" {
		return "no readings from " + name + " yet: " + strings.TrimSpace(f.drawn.hosts.figs[h].Problem)
	}
	return "no readings from " + name + " yet"
}
