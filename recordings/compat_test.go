package recordings

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// olderReaders are the last commits whose recordings package wrote and
// read an older minor version: 1.0, where record type 7 (hints) was only
// reserved, 1.1, before record type 9 (info), and 1.2, before a hint
// record's standing and episodes; and the 1.4 readers from before process
// records had their details at the end and from before a copy of the
// header opened each segment.
var olderReaders = []struct {
	version Version
	commit  string
}{
	{Version{Major: 1, Minor: 0}, "d1c2db69753f5377ee620eb8531c963984fbabfb"},
	{Version{Major: 1, Minor: 1}, "9c927cc12976567e090dc4faa0db9656db1464d8"},
	{Version{Major: 1, Minor: 2}, "4ff66d52c40901ebfdbc4ec8d64ee85ab94256b0"},
	// 1.4 before a process record's details (start, workload).
	{Version{Major: 1, Minor: 4}, "59889fdafd8811013bf01390884dec27c89250d1"},
	// 1.4 before a copy of the header opened each segment (record type 10).
	{Version{Major: 1, Minor: 4}, "bbe17b0a9fae0c430ff9f3b47fdf22dce55714ff"},
}

// readOldMain is a program that reads recordings with an older package and
// prints what dumpSample prints, then how reading ended.
const readOldMain = `package main

import (
	"fmt"
	"math"
	"os"

	"github.com/gputop-dev/gputop/recordings"
)

func main() {
	for _, path := range os.Args[1:] {
		fmt.Println("file", path)
		r, err := recordings.Open(path)
		if err != nil {
			fmt.Println("open:", err)
			continue
		}
		for {
			s, err := r.Read()
			if err != nil {
				fmt.Println("end:", err)
				break
			}
			fmt.Print(s.At.UnixNano(), len(s.Probes), len(s.Processes), len(s.Markers))
			for _, m := range s.Metrics {
				fmt.Printf(" %s/%s/%d/%x", m.Key.Name, m.Key.Device, m.Kind, math.Float64bits(m.Value))
			}
			fmt.Println()
		}
		r.Close()
	}
}
`

// dumpSample prints a sample as readOldMain does.
func dumpSample(b *strings.Builder, s *timeline.Sample) {
	fmt.Fprint(b, s.At.UnixNano(), len(s.Probes), len(s.Processes), len(s.Markers))
	for _, m := range s.Metrics() {
		fmt.Fprintf(b, " %s/%s/%d/%x", m.Key.Name, m.Key.Device, m.Kind, math.Float64bits(m.Value))
	}
	b.WriteString("\n")
}

// A gputop that reads only format 1.0, 1.1 or 1.2 reads a 1.3 file with
// hints, their episodes, and info records: every sample, and a clean end. The test builds those
// readers from the commits that last had them, so it is skipped with
// -short, and where the history or the modules it needs are not at hand
// (a shallow clone, no module cache).
func TestOlderReadersSkipNewRecords(t *testing.T) {
	if testing.Short() {
		t.Skip("builds older readers")
	}
	dir := t.TempDir()
	ss, plan, span := hintPlan()
	for i, after := range []int{0, 19, 33} { // one carried into each later segment
		info := grownInfo(i + 1)
		plan = append(plan, plannedHints{after: after, info: &info})
	}
	rec := writeWithHints(t, ss, plan, span)
	withNew := filepath.Join(dir, "new.gtr")
	if err := os.WriteFile(withNew, rec.data, 0o644); err != nil {
		t.Fatal(err)
	}
	golden, err := filepath.Abs(goldenPath)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, c := range []struct {
		path    string
		samples []timeline.Sample
	}{{withNew, ss}, {golden, goldenSamples()}} {
		fmt.Fprintln(&want, "file", c.path)
		for i := range c.samples {
			dumpSample(&want, &c.samples[i])
		}
		fmt.Fprintln(&want, "end:", io.EOF)
	}
	for _, old := range olderReaders {
		t.Run(old.version.String()+"-"+old.commit[:7], func(t *testing.T) {
			bin := buildOldReader(t, old.commit, filepath.Join(dir, old.commit))
			run := exec.Command(bin, withNew, golden)
			got, err := run.CombinedOutput()
			if err != nil {
				t.Fatalf("the %v reader: %v\n%s", old.version, err, got)
			}
			gotLines, wantLines := strings.Split(string(got), "\n"), strings.Split(want.String(), "\n")
			for i := range max(len(gotLines), len(wantLines)) {
				g, w := lineOf(gotLines, i), lineOf(wantLines, i)
				if g != w {
					t.Fatalf("the %v reader's line %d is\n%s\nwant\n%s", old.version, i+1, g, w)
				}
			}
		})
	}
}

// buildOldReader builds readOldMain against the recordings package of
// commit, in dir, and returns the program's path. It skips the test
// where that cannot be done.
func buildOldReader(t *testing.T, commit, dir string) string {
	archive := exec.Command("git", "archive", commit, "go.mod", "go.sum", "recordings", "timeline")
	archive.Dir = ".." // the module's root
	var stderr bytes.Buffer
	archive.Stderr = &stderr
	tarball, err := archive.Output()
	if err != nil {
		timelinetest.Unavailable(t, "commit %s is not in this checkout's history: %v: %s", commit, err, stderr.Bytes())
	}
	untar(t, tarball, dir)
	if err := os.MkdirAll(filepath.Join(dir, "readold"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "readold", "main.go"), []byte(readOldMain), 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", "readold.bin", "./readold")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		timelinetest.Unavailable(t, "cannot build the reader of %s here: %v\n%s", commit, err, out)
	}
	return filepath.Join(dir, "readold.bin")
}

func lineOf(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(nothing)"
}

// untar writes a tar archive's regular files under dir.
func untar(t *testing.T, tarball []byte, dir string) {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(tarball))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		path := filepath.Join(dir, filepath.FromSlash(h.Name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
