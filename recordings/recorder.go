package recordings

import (
	"cmp"
	"context"
	"errors"
	"io"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gputop-dev/gputop/recordings/format"
	"github.com/gputop-dev/gputop/timeline"
)

// HintJudge says what gputop shows about the samples a recording holds, so
// the file keeps it. analysis.HintTracker is the one gputop uses; the
// Recorder feeds it the samples it writes, on its writing goroutine.
type HintJudge interface {
	// Add takes the next sample written.
	Add(s *timeline.Sample)
	// SetInfo takes a new description of the source (a GPU found later).
	SetInfo(info timeline.SourceInfo)
	// Changed returns the hints shown at the newest sample when they name
	// other problems than the last set it returned.
	Changed() ([]timeline.Hint, bool)
	// Verdict returns the hints over every sample added: what a clean end
	// writes, the recorded verdict.
	Verdict() []timeline.Hint
}

// RecorderOptions say how a Recorder writes its files.
type RecorderOptions struct {
	// Version is gputop's version, for each file's header.
	Version string
	// Force lets Start overwrite a file that exists.
	Force bool
	// Sync writes each sample before Next returns it, and never drops one:
	// for a demo on simulated time (record --fast), which has no screen to
	// keep up with. Otherwise files are written off the sampling path,
	// through a bounded queue, so a slow disk never delays a sample.
	Sync bool
	// NewJudge, if set, gives each recording its judge of hints, made when
	// its first sample arrives (when the source knows its GPUs).
	NewJudge func(info timeline.SourceInfo) HintJudge
	// ShareDir, if set, is the user's private directory (0700, their own)
	// where each file recording listens on a socket of its own while it
	// records, for gputop attach (share.go). A socket that cannot be made
	// leaves the recording as it is; State says where the socket is.
	ShareDir string

	// create makes a recording's file; createFile unless a test gives
	// disks that stall or fill up.
	create func(path string, force bool) (io.WriteCloser, error)
}

// Recorder is the one way gputop records. The live view (--record and r),
// gputop record and gputop run all pull their samples through one, so a
// file holds the same things whichever command wrote it: the samples with
// their markers and probe statuses, the source's description (written with
// the first sample, when the GPUs are known, and again whenever it
// changes), and the hints as they change, then the verdict at a clean end.
//
//	source ──▶ Recorder.Next ──▶ caller (the screen, or Run)
//	               └──▶ queue ──▶ writing goroutine ──▶ Writer ──▶ file
//	                                      └──▶ HintJudge ──▶ hint snapshots
//
// A Recorder is a timeline.Source and a timeline.MarkSink; it records while
// started. Start creates the file at once (a path that cannot be written
// fails before anything else starts); Stop closes it with its index. A
// write error (a full disk) stops the recording, keeps what was written
// readable, and is reported once on Errors; samples go on passing through.
//
// Next must not be called from two goroutines at once (no Source may be);
// Start, Stop and State may be called from any goroutine.
type Recorder struct {
	src  timeline.Source
	opts RecorderOptions
	errs chan error

	mu  sync.Mutex
	cur *recording // nil when not recording

	// endAt, in Unix nanoseconds, makes Run return once a sample at or
	// after it is recorded; 0 when unset.
	endAt atomic.Int64
	// woken interrupts a Run waiting for a sample that EndAt made moot.
	woken chan struct{}
	// limitAt, in Unix nanoseconds, is the last sample time Run's limit
	// lets Next record; 0 when there is none.
	limitAt atomic.Int64
}

// NewRecorder returns a Recorder of src that records nothing until Start.
func NewRecorder(src timeline.Source, opts RecorderOptions) *Recorder {
	if opts.create == nil {
		opts.create = createFile
	}
	return &Recorder{src: src, opts: opts, errs: make(chan error, 1), woken: make(chan struct{}, 1)}
}

// Errors delivers the error that stopped a recording (a full disk, the file
// removed), at most one waiting at a time.
func (r *Recorder) Errors() <-chan error { return r.errs }

// Info is the source's.
func (r *Recorder) Info() timeline.SourceInfo { return r.src.Info() }

// Mark passes a marker to the source, if it takes markers: it comes back
// with a later sample, and is recorded with it.
func (r *Recorder) Mark(text string) {
	if m, ok := r.src.(timeline.MarkSink); ok {
		m.Mark(text)
	}
}

// Next returns the source's next sample, recording it while started.
func (r *Recorder) Next(ctx context.Context) (timeline.Sample, error) {
	s, err := r.src.Next(ctx)
	if err != nil {
		return s, err
	}
	if lim := r.limitAt.Load(); lim != 0 && s.At.UnixNano() > lim {
		return s, nil // past Run's limit: not recorded
	}
	r.mu.Lock()
	rec := r.cur
	r.mu.Unlock()
	if rec != nil {
		rec.take(&s, r.src)
	}
	return s, nil
}

// Start creates the file at path and records from the next sample on. The
// header is written with the first sample, when the source knows what it
// samples (NVML can take seconds to find the GPUs). Recording already, it
// returns that file's path and does nothing. After a recording stopped on
// its own (a write error), Start closes it and starts the new one.
func (r *Recorder) Start(path string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur != nil {
		if r.cur.failure() == nil {
			return r.cur.path, nil
		}
		r.cur.close() // what it wrote before the failure stays readable
		r.cur = nil
	}
	f, err := r.opts.create(path, r.opts.Force)
	if err != nil {
		return "", err
	}
	r.cur = newRecording(path, f, &r.opts, r.errs)
	if r.opts.ShareDir != "" {
		r.cur.share, r.cur.shareErr = listenShare(r.opts.ShareDir, path, r.Mark)
	}
	return path, nil
}

// StartWriter records to w, as Start records to a file, from the next
// sample on: `gputop stream` records to its stdout, so a pipe or an ssh
// connection carries the recording as it is written. name stands for w in
// messages ("stdout: broken pipe"). w is written by the writing goroutine,
// and closed by Stop; a write error stops the recording as a full disk
// does, and samples go on passing through. Recording already, it returns
// an error and leaves w alone.
func (r *Recorder) StartWriter(name string, w io.WriteCloser) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur != nil {
		if r.cur.failure() == nil {
			return errors.New("recording already, to " + r.cur.path)
		}
		r.cur.close()
		r.cur = nil
	}
	// Whatever w is (os.Stdout), it is no *recFile: only a file that
	// createFile made is watched for being removed, or removed when it got
	// no sample.
	r.cur = newRecording(name, w, &r.opts, r.errs)
	r.cur.notFile = true
	return nil
}

// Summary says what a recording holds once it is closed.
type Summary struct {
	Path        string
	Samples     int
	First, Last time.Time // the first and last samples' times
	Bytes       int64     // the file's size
	// Dropped counts samples left out because the disk could not keep up.
	Dropped int64
	// Failed is the write error that stopped the recording early, if one
	// did; everything written before it is readable.
	Failed error
	// Removed says the file was removed because no sample reached it.
	Removed bool
	// MarkersLeft counts markers left out: more came than the samples
	// could carry (a sample lists at most 16,384; more wait for the next
	// ones, up to 65,536), or they were still waiting at the end.
	MarkersLeft int
}

// Stop ends the recording: it writes what is queued and, unless writing
// failed, the verdict of its HintJudge, and closes the file with its
// index. A recording that got no sample leaves no file. Not recording, it
// returns a zero Summary. The error is one of the final write and close;
// a failure met earlier is in Summary.Failed.
func (r *Recorder) Stop() (Summary, error) {
	r.mu.Lock()
	rec := r.cur
	r.cur = nil
	r.mu.Unlock()
	if rec == nil {
		return Summary{}, nil
	}
	err := rec.close()
	return rec.summary(), err
}

// State says what the Recorder is doing now.
type State struct {
	Path string // the file being written
	On   bool   // recording
	// Failed is why the recording stopped on its own (a full disk); the
	// file stays open until Stop or the next Start.
	Failed error
	// Samples counts the samples taken so far; Dropped those left out
	// when writing fell behind.
	Samples, Dropped int
	// Socket is where others of this user can follow the recording
	// (ShareDir), "" when there is none; SocketErr says why not.
	Socket    string
	SocketErr error
}

// State returns the Recorder's state.
func (r *Recorder) State() State {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur == nil {
		return State{}
	}
	failed := r.cur.failure()
	st := State{Path: r.cur.path, On: failed == nil, Failed: failed, Samples: int(r.cur.taken.Load()),
		Dropped: int(r.cur.dropped.Load()), SocketErr: r.cur.shareErr}
	if r.cur.share != nil {
		st.Socket = r.cur.share.sock
	}
	return st
}

// EndAt makes Run return once it has recorded a sample at or after t:
// gputop run takes one more sample after its job ends, so the markers of
// the job's last lines are in the file.
func (r *Recorder) EndAt(t time.Time) {
	r.endAt.Store(t.UnixNano())
	select {
	case r.woken <- struct{}{}:
	default:
	}
}

// Run pulls samples through the Recorder, for commands without a screen,
// until ctx is done, the source ends, writing fails, or a sample at or
// after EndAt's time is recorded. A positive limit ends it on the last
// sample at or before the first one's time plus limit: a later sample is
// not recorded, and Run does not wait for one that the source's interval
// says cannot come in time. It returns nil at any of these ends but a
// failed write (its error) or the source's error other than io.EOF.
func (r *Recorder) Run(ctx context.Context, limit time.Duration) error {
	interval := r.src.Info().Interval
	// A sample a little late still counts as the one at the limit: ticks
	// are taken when due, not exactly on a grid.
	slack := interval / 4
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		for {
			select {
			case <-r.woken:
				if r.endedPast() {
					cancel()
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	defer r.limitAt.Store(0)
	for {
		s, err := r.Next(ctx)
		switch {
		case err != nil && r.endedPast(), errors.Is(err, context.Canceled), errors.Is(err, io.EOF):
			return r.State().Failed
		case err != nil:
			return err
		}
		if err := r.State().Failed; err != nil {
			return err
		}
		if limit > 0 && r.limitAt.Load() == 0 { // the first sample
			r.limitAt.Store(s.At.Add(limit + slack).UnixNano())
		}
		lim := r.limitAt.Load()
		switch {
		case lim != 0 && s.At.UnixNano() > lim:
			return nil // past the limit, so Next did not record it
		case r.endedPast():
			return nil
		case lim != 0 && interval > 0 && s.At.Add(interval).UnixNano() > lim:
			return nil // the next tick would fall past the limit
		}
	}
}

// endedPast says whether EndAt's time is no later than the last sample
// recorded, so nothing more is needed.
func (r *Recorder) endedPast() bool {
	end := r.endAt.Load()
	if end == 0 {
		return false
	}
	r.mu.Lock()
	rec := r.cur
	r.mu.Unlock()
	return rec == nil || rec.failure() != nil || (rec.taken.Load() > 0 && rec.lastTaken.Load() >= end)
}

// recorderQueue is how many samples may wait for a slow disk: a minute at
// 1 Hz.
const recorderQueue = 64

// recording is one file being written.
type recording struct {
	path string
	opts *RecorderOptions
	errs chan<- error

	// Fields of the caller of Next (one goroutine at a time).
	info *timeline.SourceInfo // the description last queued; nil before one

	queue     chan item // nil in Sync mode
	stop      chan struct{}
	done      chan struct{}
	finishing sync.Once
	finishErr error
	off       atomic.Bool  // stopped or failed: take queues nothing more
	taken     atomic.Int64 // samples queued or written
	lastTaken atomic.Int64 // Unix nanoseconds of the last one
	dropped   atomic.Int64

	// syncMu serialises writing in Sync mode, where take writes and Stop
	// may finish from another goroutine.
	syncMu sync.Mutex

	// Fields of the writing goroutine (or of take under syncMu in Sync
	// mode): the file and what was written to it.
	file        io.WriteCloser // until the first sample makes a Writer of it
	w           *Writer
	judge       HintJudge
	samples     int
	first, last time.Time
	// carried are markers past what one sample may list, to ride on the
	// next samples; markersLeft counts those past maxCarriedMarkers, left
	// out (Summary.MarkersLeft).
	carried     []timeline.Marker
	markersLeft int

	failMu sync.Mutex
	failed error

	// notFile says path names a writer (StartWriter), not a file.
	notFile bool
	// share serves the file to the user's attached viewers while it is
	// written; nil when it does not (shareErr says why, if it was asked).
	share    *sharer
	shareErr error
}

// item is what the queue carries: a sample, with the source's description
// when it is new (the first sample's, for the header, or a changed one).
type item struct {
	sample timeline.Sample
	info   *timeline.SourceInfo
}

func newRecording(path string, f io.WriteCloser, opts *RecorderOptions, errs chan<- error) *recording {
	rec := &recording{path: path, opts: opts, errs: errs, file: f}
	if !opts.Sync {
		rec.queue = make(chan item, recorderQueue)
		rec.stop = make(chan struct{})
		rec.done = make(chan struct{})
		go rec.run()
	}
	return rec
}

// take records one sample: at once in Sync mode, else through the queue,
// never waiting for the disk (a full queue drops the sample, counted).
func (rec *recording) take(s *timeline.Sample, src timeline.Source) {
	if rec.off.Load() {
		return
	}
	it := item{sample: *s}
	if info := src.Info(); rec.info == nil || !sameDescription(info, *rec.info) {
		rec.info, it.info = &info, &info
	}
	if rec.queue == nil {
		rec.syncMu.Lock()
		defer rec.syncMu.Unlock()
		if rec.off.Load() {
			return
		}
		rec.ok(rec.write(&it))
	} else {
		// The writing goroutine reads it later, when the source may have
		// made its next sample in the same values (probes/remote does).
		it.sample.Values = slices.Clone(s.Values)
		select {
		case rec.queue <- it:
		default:
			rec.dropped.Add(1)
			if it.info != nil {
				rec.info = nil // describe again with the next one
			}
			return
		}
	}
	rec.taken.Add(1)
	rec.lastTaken.Store(s.At.UnixNano())
}

// sameDescription says whether two descriptions name the same host and
// GPUs: what a recording must write again when it changes. The notes and
// checks that change while a session opens are not compared: the header
// is written after that.
func sameDescription(a, b timeline.SourceInfo) bool {
	return a.Host == b.Host && a.Driver == b.Driver && a.Kind == b.Kind &&
		slices.EqualFunc(a.GPUs, b.GPUs, func(x, y timeline.GPUInfo) bool {
			return x.Index == y.Index && x.UUID == y.UUID && x.Name == y.Name && x.MIG == y.MIG && x.GPM == y.GPM &&
				x.Host == y.Host && x.HostIndex == y.HostIndex && x.MIGProfile == y.MIGProfile &&
				x.MIGParent == y.MIGParent && x.MIGGPUInstance == y.MIGGPUInstance &&
				x.MIGComputeInstance == y.MIGComputeInstance
		}) &&
		slices.EqualFunc(a.Hosts, b.Hosts, func(x, y timeline.HostInfo) bool {
			return x.Name == y.Name && x.Driver == y.Driver && slices.Equal(x.Notes, y.Notes)
		})
}

// run is the writing goroutine. It flushes on a wall-clock tick too, so a
// source that stalls (a hung probe, a paused demo) still has its last
// samples on disk within a second.
func (rec *recording) run() {
	defer close(rec.done)
	tick := time.NewTicker(flushEvery)
	defer tick.Stop()
	for {
		select {
		case it := <-rec.queue:
			if !rec.ok(rec.write(&it)) {
				return
			}
		case <-tick.C:
			if rec.w != nil && rec.w.Pending() && !rec.ok(rec.w.Flush()) {
				return
			}
		case <-rec.stop:
			// The rest of the queue: this goroutine is its one reader.
			for len(rec.queue) > 0 {
				if it := <-rec.queue; !rec.ok(rec.write(&it)) {
					return
				}
			}
			return
		}
	}
}

// write writes one sample, the header before the first, a description
// when it changed, and the hints when the judge says they changed.
func (rec *recording) write(it *item) error {
	s := &it.sample
	if rec.w == nil {
		w, err := startWriter(rec.file, rec.path, Header{Version: rec.opts.Version, Info: *it.info, Start: s.At})
		rec.file = nil // closed by startWriter on failure, the Writer's now
		if err != nil {
			return err
		}
		rec.w = w
		if rec.opts.NewJudge != nil {
			rec.judge = rec.opts.NewJudge(*it.info)
		}
	} else if it.info != nil {
		if err := rec.w.WriteInfo(*it.info); err != nil {
			return err
		}
		if rec.judge != nil {
			rec.judge.SetInfo(*it.info)
		}
	}
	rec.spreadMarkers(s)
	if err := rec.w.Write(s); err != nil {
		return err
	}
	if rec.samples == 0 {
		rec.first = s.At
	}
	rec.samples, rec.last = rec.samples+1, s.At
	if rec.judge == nil {
		return nil
	}
	rec.judge.Add(s)
	if hints, ok := rec.judge.Changed(); ok {
		return rec.writeHints(s.At, hints)
	}
	return nil
}

// maxCarriedMarkers bounds the markers waiting for a later sample: four
// samples' worth, a few MB of text at most.
const maxCarriedMarkers = 4 * format.MaxListLen

// spreadMarkers keeps s within the markers a sample may list
// (format.MaxListLen): those past it ride on the next samples, the
// earliest first, each on a sample at or after its own time as before. A
// job printing a million "Epoch N" lines, or anyone of the user's on the
// marker socket, once put more on one sample than the Writer takes, and
// the recording stopped for good. Past maxCarriedMarkers waiting, the
// latest are left out and counted.
func (rec *recording) spreadMarkers(s *timeline.Sample) {
	if len(rec.carried) == 0 && len(s.Markers) <= format.MaxListLen {
		return
	}
	all := append(rec.carried, s.Markers...)
	n := min(len(all), format.MaxListLen)
	s.Markers = all[:n:n]
	rest := all[n:]
	if len(rest) > maxCarriedMarkers {
		rec.markersLeft += len(rest) - maxCarriedMarkers
		rest = rest[:maxCarriedMarkers]
	}
	rec.carried = slices.Clone(rest)
}

// writeHints writes a snapshot. Hints the format refuses (a rule's bug,
// such as a NaN confidence) are left out; only the Writer's own failure
// stops the recording.
func (rec *recording) writeHints(at time.Time, hints []timeline.Hint) error {
	_ = rec.w.WriteHints(at, hints) // a refusal writes nothing; a failed Writer's error is w.err
	return rec.w.err
}

// ok handles a write's error: the first one stops the recording, is
// reported, and closes the file so what was written stays readable.
func (rec *recording) ok(err error) bool {
	if err == nil {
		return true
	}
	rec.off.Store(true)
	rec.failMu.Lock()
	rec.failed = err
	rec.failMu.Unlock()
	select {
	case rec.errs <- err:
	default:
	}
	rec.closeFile()
	return false
}

func (rec *recording) failure() error {
	rec.failMu.Lock()
	defer rec.failMu.Unlock()
	return rec.failed
}

// closeFile closes whatever is open; its error is the Writer's first.
func (rec *recording) closeFile() error {
	switch {
	case rec.w != nil:
		return rec.w.Close()
	case rec.file != nil:
		return rec.file.Close()
	}
	return nil
}

// close stops the writing goroutine after the queue is written, writes
// the verdict, and closes the file; a file that got no sample is removed.
// Last, its attached clients take the rest of the file (the index and
// trailer end their streams).
func (rec *recording) close() error {
	rec.finishing.Do(func() {
		if rec.share != nil {
			defer rec.share.end()
		}
		rec.off.Store(true)
		if rec.queue != nil {
			close(rec.stop)
			<-rec.done
		} else {
			rec.syncMu.Lock()
			defer rec.syncMu.Unlock()
		}
		if rec.failure() != nil {
			return // closed when it failed
		}
		if rec.w == nil {
			rmErr := removeMade(rec.file, rec.path) // only a file it made
			rec.finishErr = cmp.Or(rec.closeFile(), rmErr)
			return
		}
		if rec.judge != nil && rec.samples > 0 {
			_ = rec.writeHints(rec.last, rec.judge.Verdict()) // its error is w.err, which closeFile returns
		}
		rec.finishErr = rec.closeFile()
	})
	return rec.finishErr
}

// summary describes the recording after close.
func (rec *recording) summary() Summary {
	s := Summary{Path: rec.path, Samples: rec.samples, First: rec.first, Last: rec.last,
		Dropped: rec.dropped.Load(), Failed: rec.failure(), Removed: rec.w == nil && rec.failure() == nil,
		MarkersLeft: rec.markersLeft + len(rec.carried)}
	if fi, err := os.Stat(rec.path); err == nil && !s.Removed && !rec.notFile {
		s.Bytes = fi.Size()
	}
	return s
}
