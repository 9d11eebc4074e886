package ui

import (
	"cmp"
	"context"
	"errors"
	"io"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/timeline/units"
	"github.com/gputop-dev/gputop/ui/config"
	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/gpulist"
	"github.com/gputop-dev/gputop/ui/help"
	"github.com/gputop-dev/gputop/ui/keymap"
	"github.com/gputop-dev/gputop/ui/layout"
	"github.com/gputop-dev/gputop/ui/playback"
	"github.com/gputop-dev/gputop/ui/prompt"
)

// Options configure the UI.
type Options struct {
	// Source is where samples come from: the live sampler, a demo or a
	// recording. The UI pulls from it at its own pace and cannot tell which.
	Source timeline.Source
	// Store receives the samples; nil makes one sized for a live session.
	Store *timeline.Store
	// ASCII draws without Unicode; Plain draws without colour (NO_COLOR).
	ASCII, Plain bool
	// Renderer is the lipgloss renderer of the output terminal; nil uses
	// lipgloss's default.
	Renderer *lipgloss.Renderer
	// Speed is the starting replay speed (1 if zero).
	Speed float64
	// Start is where a replay starts (its beginning if zero).
	Start time.Time
	// Recorder starts and stops recording for the r key; nil where there is
	// nothing to record (a replay).
	Recorder Recorder
	// Killer sends SIGTERM for the k key; nil turns k off. Only a live
	// session's is asked.
	Killer Killer
	// ReadOnly turns k off, and out of the help and the footer
	// (--readonly).
	ReadOnly bool
	// Notice is a line the footer shows from the start, until a key is
	// pressed: something the person should know that is not an error
	// (markers going to a fallback directory).
	Notice string
	// Settings are the settings file's: the detail graph's first metric
	// and the layout (the caller applies the interval, colors and ascii).
	Settings config.Settings
	// HostStatus says, for a session of several hosts, how each host's
	// connection stands (timeline.RemoteProbe statuses, by host name)
	// before the first sample, which waits for every host to answer or
	// fail: a host that failed says why from the first second. Nil for
	// one host.
	HostStatus func() []timeline.ProbeStatus
	// Judge is the process's analysis, which takes each sample on its way
	// to the screen (Judge.Take, the pipeline's first sink): the screen asks
	// it about its cursor, as the recording and /metrics ask it, and judges
	// nothing itself. Nil for a source nothing judged before (a replay, an attach):
	// the screen feeds an Engine of its own.
	Judge *analysis.Judge
}

// Recorder records the session to a file while the screen runs.
type Recorder interface {
	// Start begins recording and says to which file.
	Start() (path string, err error)
	// Stop ends recording, closes the file, and says in a few words where
	// it went and what it holds.
	Stop() (summary string, err error)
	// State says whether it records, to which file, and why it stopped on
	// its own (a full disk) if it did.
	State() (path string, on bool, failed error)
}

// Model is the root bubbletea model. Its Update only dispatches; each
// part of the screen keeps its own state (the GPU list, the process table,
// the hints, the help, the question, the detail pane), its keys (rows of
// the key table, bindings.go) and its drawing.
type Model struct {
	// session is what the source said and the store holds; look is what
	// every panel draws with. Both are read everywhere, so they are
	// embedded.
	session
	look

	lay layout.Layout
	// drawn is what drawing keeps between frames (the last frame, the
	// mouse's rows, scratch).
	drawn drawn
	play  cursor

	list   gpulist.List
	detail detailPane
	procs  procPanel
	hint   hintView
	help   help.Screen
	prompt prompt.Prompt
	// keys is the key table and the screen's rows of it, with their
	// handlers and rules (bindings.go).
	keys keyTable
	an   analysisState
	// note is the footer's one-line answer to a key (nothing to do, a bad
	// time, a recording started); it stays until the next key.
	note string
}

// session is what the screen knows of its source: its description, the
// store its samples go to, what was learnt from them, and how it ended.
type session struct {
	src  timeline.Source
	info timeline.SourceInfo
	// hostStatus and hostWait are the hosts' connections before the first
	// sample (Options.HostStatus), by host name.
	hostStatus func() []timeline.ProbeStatus
	hostWait   map[string]timeline.ProbeStatus
	// gpuNames names GPUs as the hints and the report do: "node3 GPU2"
	// in a session of several hosts. Kept with info.
	gpuNames units.GPUNames
	store    *timeline.Store
	// jobSeen says the store holds the job's progress: the screen has a
	// job row (job.go).
	jobSeen   bool
	cores     []string // the host's core devices, in order
	coresSeen int      // store keys looked at for cores
	// owned is what the layout takes of the newest owners (owners.go).
	owned owned
	// series is every GPU's series ids for the summaries (gpuseries.go).
	series   gpuSeriesCache
	recorder Recorder

	ctx    context.Context
	cancel context.CancelFunc

	sourceDone bool
	sourceErr  error
}

// look is what the screen draws with.
type look struct {
	theme draw.Theme
	glyph *draw.Glyphs
	ascii bool
	fit   draw.Fitter // how every text meets its room (draw/fit.go)
	// oneRow keeps every GPU to one row (layout = "compact").
	oneRow bool
	// width and height are the terminal's.
	width, height int
}

// drawn is what drawing keeps between frames.
type drawn struct {
	cols []timeline.Agg // scratch columns for sparklines
	// hits say what each row of the last frame shows, for the mouse
	// (mouse.go).
	hits []hit
	// dirty says the screen must be drawn again; last is the last one.
	dirty bool
	last  string
	hosts hostScratch // the hosts' lines' (hostlist.go)
}

// cursor is the playback state (ui/playback) and how it began.
type cursor struct {
	playback.State
	// sized says the default zoom has been set from the first size.
	sized bool
	// start is where a replay starts (--start), until it is reached.
	start time.Time
}

// New builds the model.
func New(opts Options) *Model {
	ctx, cancel := context.WithCancel(context.Background())
	info := opts.Source.Info()
	store := opts.Store
	if store == nil {
		store = timeline.NewStore(timeline.StoreOptions{RawSamples: timeline.DefaultRawSamples})
	}
	r := cmp.Or(opts.Renderer, lipgloss.DefaultRenderer())
	g := &draw.UnicodeGlyphs
	if opts.ASCII {
		g = &draw.ASCIIGlyphs
	}
	speed := opts.Speed
	if speed <= 0 {
		speed = 1
	}
	grows := info.Kind == timeline.Live || info.Kind == timeline.Demo
	m := &Model{
		session: session{
			src:        opts.Source,
			store:      store,
			ctx:        ctx,
			cancel:     cancel,
			recorder:   opts.Recorder,
			hostStatus: opts.HostStatus,
		},
		look: look{
			theme:  draw.NewTheme(r, opts.Plain),
			glyph:  g,
			ascii:  opts.ASCII,
			fit:    draw.NewFitter(g, opts.ASCII),
			oneRow: opts.Settings.Layout == "compact",
		},
		note:   opts.Notice,
		play:   cursor{State: playback.State{Motion: playback.Following, Speed: speed, Grows: grows}, start: opts.Start},
		procs:  procPanel{killer: opts.Killer, readonly: opts.ReadOnly},
		detail: detailPane{metric: metricIndex(opts.Settings.Metric), graph: opts.Settings.Layout == "graph"},
	}
	m.setInfo(info)
	if opts.Judge != nil {
		m.an.engine, m.an.shared = opts.Judge, true
	}
	if !grows {
		// A replay opens on the whole recording, paused where its hints are
		// the whole file's (State.OpenWhole, ui/playback); with --start, it plays
		// from there.
		m.play.Motion = playback.Playing
		if opts.Start.IsZero() {
			m.play.Motion, m.play.OpenWhole = playback.Paused, true
		}
	}
	m.keys = newKeyTable(m, keymap.New(opts.ASCII, opts.ReadOnly))
	m.updateKeys()
	return m
}

// Init starts pulling samples.
func (m *Model) Init() tea.Cmd { return tea.Batch(m.pull(), m.watchHosts()) }

// hostsWaitMsg asks the hosts of several how their connections stand,
// until the first sample says it itself.
type hostsWaitMsg struct{}

// hostsWaitEvery is how often the hosts' connections are asked about
// before the first sample.
const hostsWaitEvery = 500 * time.Millisecond

// watchHosts schedules the next question about the hosts' connections,
// while there is no sample yet and someone can answer it.
func (s *session) watchHosts() tea.Cmd {
	if s.hostStatus == nil || s.store.Len() > 0 {
		return nil
	}
	return tea.Tick(hostsWaitEvery, func(time.Time) tea.Msg { return hostsWaitMsg{} })
}

// handleHostsWait takes the hosts' connections as they stand.
func (s *session) handleHostsWait() tea.Cmd {
	if s.store.Len() > 0 {
		return nil
	}
	s.hostWait = map[string]timeline.ProbeStatus{}
	for _, st := range s.hostStatus() {
		s.hostWait[st.Device] = st
	}
	return s.watchHosts()
}

// samplesMsg carries samples from the source.
type samplesMsg struct{ samples []timeline.Sample }

// sourceDoneMsg says the source has no more samples (err is io.EOF at a
// clean end of a recording).
type sourceDoneMsg struct{ err error }

// tickMsg moves a playing cursor; it carries its own time.
type tickMsg struct{ at time.Time }

// BatchSource is a Source that can hand over many samples at once when they
// are ready without waiting, like a recording being loaded. NextBatch returns
// an error only when it has no samples to return.
type BatchSource interface {
	timeline.Source
	NextBatch(ctx context.Context, max int) ([]timeline.Sample, error)
}

// batchSize bounds how many samples one message carries, so a long
// recording loads in a few dozen screen updates, the first shows early,
// and a batch in flight stays small beside the store (1024 samples of 8
// GPUs are about 10 MB before they are filed as float32 columns).
const batchSize = 1024

// pull waits for the next sample(s). It is re-armed after each message, so
// the UI takes samples at its own pace.
func (s *session) pull() tea.Cmd {
	src, ctx := s.src, s.ctx
	return func() tea.Msg {
		if b, ok := src.(BatchSource); ok {
			ss, err := b.NextBatch(ctx, batchSize)
			if len(ss) > 0 {
				return samplesMsg{samples: ss}
			}
			return sourceDoneMsg{err: err}
		}
		one, err := src.Next(ctx)
		if err != nil {
			return sourceDoneMsg{err: err}
		}
		return samplesMsg{samples: []timeline.Sample{one}}
	}
}

// Update dispatches a message to its handler, then says which keys do
// something in the state it left.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	// Samples arriving under a paused live view cannot change what is
	// drawn (the window and every number are the cursor's), so nothing is
	// drawn again: a paused screen should cost nothing.
	_, isSamples := msg.(samplesMsg)
	paused := isSamples && m.play.Motion == playback.Paused && m.play.Grows && m.store.Len() > 0 && !m.help.IsOpen()
	m.drawn.dirty = m.drawn.dirty || !paused
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.KeyMsg:
		cmd = m.handleKeys(msg)
	case tea.MouseMsg:
		cmd, _ = keymap.RouteMouse(msg, m.layers())
	case tea.WindowSizeMsg:
		m.handleResize(msg.Width, msg.Height)
	case samplesMsg:
		cmd = m.handleSamples(msg.samples)
	case sourceDoneMsg:
		cmd = m.handleSourceDone(msg.err)
	case tickMsg:
		if m.store.Len() > 0 && m.play.OnTick(msg.at, m.store.Last(), m.sourceDone) {
			cmd = m.play.tick(m.store.Interval())
		}
	case hostsWaitMsg:
		cmd = m.handleHostsWait()
	}
	m.list.KeepInView(m.info.MultiHost(), len(m.info.GPUs), m.lay.GPUsShown)
	m.settle()
	if m.drawn.dirty {
		m.render()
	}
	return m, cmd
}

// settle brings what follows from the state up to date after a change:
// the analysis at the cursor, the scrolled panels kept in view, and which
// keys do something. View only reads what it leaves.
func (m *Model) settle() {
	m.an.refresh(&m.play.State, len(m.info.GPUs))
	if m.hint.sel > len(m.an.shown) {
		m.hint.open(0) // the hint opened no longer holds
	}
	// Every scrolled part is clamped to its lines and rows now: the help,
	// an open hint, the process table (which gives the keys back where it
	// has no lists or no room to show them).
	if m.help.IsOpen() {
		m.help.Clamp(len(m.helpPage().Lines()), m.height)
	}
	m.hint.overflow = 0
	if h := &m.hint; h.sel > 0 {
		p := m.hintPanel(m.play.Cursor)
		lines, rows := len(p.Detail()), max(1, m.paneRows(m.lay.Hints)-1)
		h.at.Clamp(lines, rows)
		h.overflow = max(0, lines-rows)
	}
	_, procsAt := m.store.ProcessesAt(m.store.Last())
	m.procs.Focus = m.procs.Focus && !procsAt.IsZero() && m.paneRows(m.lay.Procs) >= 4
	if rows := m.procRows(); rows > 0 {
		m.procs.Place(m.pen(), m.frame().procSpans(), rows, m.procGPUs())
	}
	m.updateKeys()
}

func (m *Model) handleSamples(ss []timeline.Sample) tea.Cmd {
	wasEmpty := m.store.Len() == 0
	for i := range ss {
		m.store.Add(&ss[i])
	}
	m.an.feed(ss, m.src.Info())
	if m.store.Len() == 0 {
		return m.pull()
	}
	if wasEmpty || m.info.MultiHost() && len(m.src.Info().GPUs) != len(m.info.GPUs) {
		// A source may learn what it samples only as it starts (NVML's
		// init can take seconds), and a host of several that answers late
		// brings GPUs of its own: take its description again.
		m.setInfo(m.src.Info())
		if wasEmpty {
			m.play.Grows = m.info.Kind == timeline.Live || m.info.Kind == timeline.Demo
		}
		if m.width > 0 {
			m.handleResize(m.width, m.height)
		}
	}
	// What the samples taught the layout: the host's cores, the job's
	// progress, who holds the GPUs.
	cores, job, owners := m.noteCores(), m.noteJob(), m.noteOwners()
	if cores {
		m.list.GroupCores(m.cores)
	}
	if (cores || job || owners) && m.width > 0 {
		m.relayout()
	}
	first, last := m.store.First(), m.store.Last()
	if m.play.OpenWhole {
		// A replay without --start: the whole of what is loaded, the cursor
		// at its end, until a key moves it.
		m.play.Cursor, m.play.Zoom, m.play.sized = last, len(playback.ZoomLevels), true
		return m.pull()
	}
	if opening := wasEmpty && !m.play.Grows; opening || !m.play.start.IsZero() {
		// A replay with --start starts there, playing, with the window
		// ending there: what was on screen at that moment. Until it has
		// loaded that far, the cursor waits at the newest sample.
		m.play.Cursor = playback.ClampTime(m.play.start, first, last)
		if !m.play.start.After(last) {
			m.play.start = time.Time{} // loaded that far: --start is forgotten
		}
		if opening {
			return tea.Batch(m.pull(), m.play.tick(m.store.Interval()))
		}
	}
	m.play.OnSamples(last)
	return m.pull()
}

func (m *Model) handleSourceDone(err error) tea.Cmd {
	m.sourceDone = true
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled) {
		m.sourceErr = err
		m.note = "" // the footer's notice would hide it
	}
	if m.store.Len() > 0 && m.play.Motion == playback.Playing && !m.play.Cursor.Before(m.store.Last()) {
		m.play.Motion = playback.Paused
	}
	return nil
}

// tick schedules the next playback step, one sample of interval's worth.
func (c *cursor) tick(interval time.Duration) tea.Cmd {
	if c.Motion != playback.Playing {
		return nil
	}
	return tea.Tick(c.TickEvery(interval), func(t time.Time) tea.Msg { return tickMsg{at: t} })
}

func (m *Model) handleResize(w, h int) {
	m.width, m.height = w, h
	m.relayout()
	if !m.play.sized && m.lay.Fits {
		m.play.Zoom = playback.DefaultZoom(m.lay.Spark, m.info.Interval)
		m.play.sized = true
	}
}

// quit stops pulling from the source and ends the program.
func (s *session) quit() tea.Cmd {
	s.cancel()
	return tea.Quit
}

// Close stops pulling from the source.
func (m *Model) Close() { m.cancel() }

// setInfo takes the source's description, and the GPU names that go with it.
func (s *session) setInfo(in timeline.SourceInfo) {
	s.info = migUnderParents(in)
	s.gpuNames = analysis.GPUNamesOf(in)
}
