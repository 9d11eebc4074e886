package buildinfo

import (
	"runtime/debug"
	"testing"
)

// TestStamp: a release's -X values win; otherwise what the go command
// stamped: a go install of a tag, a build in a checkout with changes.
func TestStamp(t *testing.T) {
	const dev = "0.1.0-dev"
	install := &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}
	checkout := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "89ff36d8e3b1c0ffee0000000000000000000000"}, {Key: "vcs.modified", Value: "true"}}}
	for _, c := range []struct {
		info            *debug.BuildInfo
		version, commit string
		want            string
	}{
		{nil, dev, "", dev},
		{install, "1.5.0", "abc1234", "1.5.0 (commit abc1234)"},
		{install, dev, "", "1.4.0"},
		{checkout, dev, "", dev + " (commit 89ff36d8e3b1-dirty)"},
	} {
		if got := Line(Stamp(c.info, c.version, dev, c.commit)); got != c.want {
			t.Errorf("Stamp(%+v, %q, %q) prints %q, want %q", c.info, c.version, c.commit, got, c.want)
		}
	}
}
