package main

import (
	"runtime/debug"
	"strings"
)

// commit is the commit a release was built from, set with version by the
// release build (.goreleaser.yaml: -X main.version=1.2.3 -X main.commit=...).
var commit = ""

// devVersion is version when no release build set it.
const devVersion = "0.1.0-dev"

// stamp fills version and commit from what the go command wrote into the
// binary, where the release build did not set them: `go install
// github.com/gputop-dev/gputop@v1.2.3` stamps the module's version
// (v1.2.3), and a build in a checkout its commit (vcs.revision, with
// vcs.modified for uncommitted changes). A release build's own values win.
func stamp(info *debug.BuildInfo, version, commit string) (string, string) {
	if info == nil {
		return version, commit
	}
	if v := info.Main.Version; version == devVersion && v != "" && v != "(devel)" {
		version = strings.TrimPrefix(v, "v")
	}
	if commit == "" {
		var rev string
		var dirty bool
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if rev != "" && dirty {
			rev += "-dirty"
		}
		commit = rev
	}
	return version, commit
}

// versionLine is what gputop version prints after "gputop ".
func versionLine(version, commit string) string {
	if commit == "" {
		return version
	}
	return version + " (commit " + commit + ")"
}
