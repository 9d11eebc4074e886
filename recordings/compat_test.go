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
)

// version10Commit is the last commit whose recordings package wrote and
// read format 1.0, where record type 7 was only reserved.
const version10Commit = "d1c2db69753f5377ee620eb8531c963984fbabfb"

// read10Main is a program that reads recordings with the 1.0 package and
// prints what dumpSample prints, then how reading ended.
const read10Main = `package main

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

// dumpSample prints a sample as read10Main does.
func dumpSample(b *strings.Builder, s *timeline.Sample) {
	fmt.Fprint(b, s.At.UnixNano(), len(s.Probes), len(s.Processes), len(s.Markers))
	for _, m := range s.Metrics {
		fmt.Fprintf(b, " %s/%s/%d/%x", m.Key.Name, m.Key.Device, m.Kind, math.Float64bits(m.Value))
	}
	b.WriteString("\n")
}

// A gputop that reads only format 1.0 reads a 1.1 file with hints: every
// sample, and a clean end. The test builds that reader from the commit
// that last had it, so it is skipped with -short, and where the history or
// the modules it needs are not at hand (a shallow clone, no module cache).
func TestVersion10ReaderSkipsHints(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the 1.0 reader")
	}
	dir := t.TempDir()
	archive := exec.Command("git", "archive", version10Commit, "go.mod", "go.sum", "recordings", "timeline")
	archive.Dir = ".." // the module's root
	var stderr bytes.Buffer
	archive.Stderr = &stderr
	tarball, err := archive.Output()
	if err != nil {
		t.Skipf("the 1.0 reader is not in this checkout's history: %v: %s", err, stderr.Bytes())
	}
	untar(t, tarball, dir)
	if err := os.MkdirAll(filepath.Join(dir, "read10"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "read10", "main.go"), []byte(read10Main), 0o644); err != nil {
		t.Fatal(err)
	}

	ss, plan, span := hintPlan()
	rec := writeWithHints(t, ss, plan, span)
	withHints := filepath.Join(dir, "hints.gtr")
	if err := os.WriteFile(withHints, rec.data, 0o644); err != nil {
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
	}{{withHints, ss}, {golden, goldenSamples()}} {
		fmt.Fprintln(&want, "file", c.path)
		for i := range c.samples {
			dumpSample(&want, &c.samples[i])
		}
		fmt.Fprintln(&want, "end:", io.EOF)
	}

	build := exec.Command("go", "build", "-o", "read10.bin", "./read10")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Skipf("cannot build the 1.0 reader here: %v\n%s", err, out)
	}
	run := exec.Command(filepath.Join(dir, "read10.bin"), withHints, golden)
	got, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("the 1.0 reader: %v\n%s", err, got)
	}
	gotLines, wantLines := strings.Split(string(got), "\n"), strings.Split(want.String(), "\n")
	for i := range max(len(gotLines), len(wantLines)) {
		g, w := lineOf(gotLines, i), lineOf(wantLines, i)
		if g != w {
			t.Fatalf("the 1.0 reader's line %d is\n%s\nwant\n%s", i+1, g, w)
		}
	}
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
