// Package buildinfo says which build of a program a binary is: the version
// and commit that its release build set (-ldflags -X, .goreleaser.yaml), or
// where that build set none, what the go command stamped into the binary:
// the module's version for `go install module@v1.2.3`, the commit (and
// whether the tree had changes) for a build in a checkout.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Stamp returns version and commit, each filled from info where the
// release build left it unset: version equal to dev, commit empty.
func Stamp(info *debug.BuildInfo, version, dev, commit string) (string, string) {
	if info == nil {
		return version, commit
	}
	if v := info.Main.Version; version == dev && v != "" && v != "(devel)" {
		version = strings.TrimPrefix(v, "v")
	}
	if commit != "" {
		return version, commit
	}
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value[:min(len(s.Value), 12)]
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if commit != "" && dirty {
		commit += "-dirty"
	}
	return version, commit
}

// Line is version and commit as `gputop version` prints them after the
// program's name: 1.2.3 (commit 89ff36d).
func Line(version, commit string) string {
	if commit == "" {
		return version
	}
	return version + " (commit " + commit + ")"
}
