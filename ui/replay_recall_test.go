package ui

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/timeline"
)

// A replay that keeps the newest samples and reads older ones back from
// the file draws every screen as one that keeps them all: the GPU list,
// the sparklines and a GPU's detail, at the start, in the middle and at
// the end, zoomed in and out.
func TestReplayReadingBackLooksLikeKeepingEverything(t *testing.T) {
	path := writeRecording(t, "three-hours.gtr", fixtureInfo(timeline.Live), fixtureSamples(3*3600))
	r, err := recordings.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	recall, err := r.Recaller()
	if err != nil {
		t.Fatal(err)
	}
	defer recall.Close()
	kept := replayModel(t, path, timeline.NewStore(timeline.StoreOptions{RawSamples: timeline.FileRawSamples,
		RawValues: timeline.FileRawValues}))
	back := replayModel(t, path, timeline.NewStore(timeline.StoreOptions{RawSamples: timeline.FileRawSamples,
		RawValues: 200 * 600, Recall: recall.Recall}))
	if !back.store.OldestRaw().After(back.store.First()) {
		t.Fatalf("the store kept every sample (from %v): the test tests nothing", back.store.OldestRaw())
	}
	same := func(what string) {
		t.Helper()
		a, b := screen(kept), screen(back)
		if a != b {
			t.Fatalf("%s: read back\n%s\nkept\n%s", what, b, a)
		}
		if strings.Contains(b, "every sample since") {
			t.Fatalf("%s: the screen says it lacks samples it can read back:\n%s", what, b)
		}
	}
	for _, at := range []string{"+30s", "+10m", "+1h", "+1h30m", "+2h59m", "-1m"} {
		for _, m := range []*Model{kept, back} {
			if why := m.play.goTo(at, m.store); why != "" {
				t.Fatalf("t %s: %s", at, why)
			}
		}
		same("t " + at)
		for range 3 {
			for _, m := range []*Model{kept, back} {
				m.play.ZoomIn(m.store.First(), m.store.Last())
			}
			same("t " + at + ", zoomed in")
		}
		for range 5 {
			for _, m := range []*Model{kept, back} {
				m.play.ZoomOut(m.store.First(), m.store.Last())
			}
			same("t " + at + ", zoomed out")
		}
	}
	for _, m := range []*Model{kept, back} {
		m.play.goTo("+20m", m.store)
		m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	}
	same("a GPU's detail, 20 minutes in")
}

// replayModel loads the recording at path into a screen of 120x40 as
// `gputop replay` does, into store (nil: the screen's own).
func replayModel(t *testing.T, path string, store *timeline.Store) *Model {
	t.Helper()
	r, err := recordings.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	src := recordings.NewReplay(r)
	m := New(Options{Source: src, Renderer: testRenderer(), Store: store})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	for {
		batch, err := src.NextBatch(context.Background(), batchSize)
		if len(batch) > 0 {
			m.Update(samplesMsg{samples: batch})
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	m.Update(sourceDoneMsg{err: io.EOF})
	return m
}

// writeRecording records samples of the source info describes to a file
// named name in a directory of the test's, as gputop record would.
func writeRecording(t testing.TB, name string, info timeline.SourceInfo, samples []timeline.Sample) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	w, err := recordings.Create(path, recordings.Header{Info: info, Start: samples[0].At}, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := range samples {
		if err := w.Write(&samples[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}
