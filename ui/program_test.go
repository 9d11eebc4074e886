package ui

import (
	"bytes"
	"context"
	"io"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
	terminal "github.com/gputop-dev/gputop/ui/screen"
)

// countingWriter counts what the program writes to its terminal.
type countingWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *countingWriter) Len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Len()
}

// chanSource hands over the samples it is given, one Next at a time.
type chanSource struct {
	info timeline.SourceInfo
	in   chan timeline.Sample
}

func (s *chanSource) Info() timeline.SourceInfo { return s.info }

func (s *chanSource) Next(ctx context.Context) (timeline.Sample, error) {
	select {
	case smp := <-s.in:
		return smp, nil
	case <-ctx.Done():
		return timeline.Sample{}, ctx.Err()
	}
}

// runOnScreen runs m as gputop does, a bubbletea program drawn by the
// screen's renderer, with no input; done closes when the program ends.
func runOnScreen(t *testing.T, m *Model, out io.Writer) (*tea.Program, <-chan struct{}) {
	p := tea.NewProgram(terminal.NewModel(m, terminal.NewRenderer(out), 200*time.Millisecond),
		tea.WithInput(nil), tea.WithoutRenderer(), tea.WithoutSignalHandler())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := p.Run(); err != nil {
			t.Error(err)
		}
	}()
	return p, done
}

// TestPausedScreenWritesNothing runs the real bubbletea program with the
// screen's renderer, as gputop does: while the view is paused, samples keep arriving every second
// and not one byte goes to the terminal. Over SSH, a paused gputop costs
// nothing.
func TestPausedScreenWritesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		samples := fixtureSamples(90)
		src := &chanSource{info: fixtureInfo(timeline.Live), in: make(chan timeline.Sample)}
		out := &countingWriter{}
		m := New(Options{Source: src})
		p, done := runOnScreen(t, m, out)
		p.Send(tea.WindowSizeMsg{Width: 120, Height: 40})
		feed := func(from, to int) {
			for i := from; i < to; i++ {
				src.in <- samples[i]
				time.Sleep(time.Second)
			}
		}
		feed(0, 60)
		if out.Len() == 0 {
			t.Fatal("the live screen wrote nothing")
		}
		live := out.Len()
		feed(60, 62)
		if out.Len() == live {
			t.Fatal("a live screen should redraw as samples arrive")
		}
		p.Send(tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}})
		time.Sleep(time.Second)
		paused := out.Len()
		feed(62, 90)
		if grew := out.Len() - paused; grew != 0 {
			t.Fatalf("paused with no keys for 28 s of samples, the screen wrote %d bytes", grew)
		}
		p.Quit()
		<-done
		m.Close()
		synctest.Wait()
	})
}

// TestLiveScreenByteBudget measures what the live screen sends per sample
// once its sparklines are full, with the real renderer: the goal is at most
// 3 KB/s at 80x24 and 10 KB/s at 200x50 at a 1 s interval (docs/performance.md). The
// fixture is busier than a real job (a sawtooth, dips, a lost GPU), so
// passing here leaves room on a real one.
func TestLiveScreenByteBudget(t *testing.T) {
	for _, c := range []struct {
		w, h   int
		budget int
	}{{80, 24, 3000}, {120, 40, 6000}, {200, 50, 10000}} {
		synctest.Test(t, func(t *testing.T) {
			const warm, measured = 150, 30
			samples := fixtureSamples(warm + measured)
			src := &chanSource{info: fixtureInfo(timeline.Live), in: make(chan timeline.Sample)}
			out := &countingWriter{}
			m := New(Options{Source: src})
			p, done := runOnScreen(t, m, out)
			p.Send(tea.WindowSizeMsg{Width: c.w, Height: c.h})
			var before int
			for i, s := range samples {
				if i == warm {
					before = out.Len()
				}
				src.in <- s
				time.Sleep(time.Second)
			}
			perSample := (out.Len() - before) / measured
			t.Logf("%dx%d: %d bytes per sample", c.w, c.h, perSample)
			if perSample > c.budget {
				t.Errorf("%dx%d: %d bytes per sample, budget %d", c.w, c.h, perSample, c.budget)
			}
			p.Quit()
			<-done
			m.Close()
			synctest.Wait()
		})
	}
}
