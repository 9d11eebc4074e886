package load

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
)

// Recording reads the samples of a recording from lo to hi (zero: no
// bound) into a store that keeps them all and an Engine that judges them,
// which ends with the source's description as it stood at the last of
// them. warn is damage: what was lost, said in one line; everything else
// was read.
//
// Each sample is derived once, by the Engine, and the store files what it
// derived. Reading (decompressing and decoding), judging and filing are
// each about a third of the work of a day of 8 GPUs, so each runs in a
// goroutine of its own, handing batches of samples on in order: on two
// cores the load takes about half as long.
func Recording(r *recordings.Reader, path string, lo, hi time.Time) (store *timeline.Store, eng *analysis.Engine, warn, err error) {
	// The report reads every series from the store's first sample on
	// (NewReport's span is the store's): a tier that no longer holds it
	// is let go (ReadFromFirst).
	span := expectedSpan(r, lo, hi)
	store = timeline.NewStore(timeline.StoreOptions{RawSamples: timeline.FileRawSamples, RawValues: timeline.FileRawValues,
		Reserve: ExpectedSamples(r), ReserveSpan: span, ReadFromFirst: true})
	eng = analysis.NewEngine(r.Info())
	read := make(chan []loadedSample, 2)
	judged := make(chan []loadedSample, 2)
	// A few batches go round and round: the reader waits for one the
	// store is done with rather than making more.
	spent := make(chan []loadedSample, loadBatches)
	for range loadBatches {
		spent <- make([]loadedSample, 0, loadBatch)
	}
	var readErr error
	go func() {
		defer close(read)
		warn, readErr = readSamples(r, lo, hi, read, spent)
	}()
	filed := make(chan struct{})
	go func() {
		defer close(filed)
		for batch := range judged {
			for i := range batch {
				if ls := &batch[i]; ls.s.Derived == &ls.derived {
					store.AddFloat32(&ls.s, ls.vals)
				} else {
					store.Add(&ls.s)
				}
			}
			spent <- batch[:0]
		}
	}()
	for batch := range read {
		for i := range batch {
			ls := &batch[i]
			// The description as of this sample: a GPU found later, a
			// limit now known.
			eng.SetInfo(ls.info)
			// The store gets the numbers as float32 (what it keeps), in
			// the slot's own slice: the Engine's are its own until its
			// next sample.
			ls.vals, _ = eng.AddDerived(&ls.s, &ls.derived, ls.vals)
			// The values go back to the reader with the slot once the
			// store has filed it, to be read into (Reader.Recycle): a
			// day's are 400 MB otherwise.
			ls.spare = ls.s.Values
		}
		judged <- batch
	}
	close(judged)
	<-filed
	if readErr != nil {
		return nil, nil, nil, readErr
	}
	if store.Len() == 0 {
		return nil, nil, nil, fmt.Errorf("%s: the recording has no samples", path)
	}
	return store, eng, warn, nil
}

// expectedSpan is how long the samples from lo to hi (zero: no bound) span,
// as the recording's index says: what the store's bucket tiers make room
// for. 0 where it does not say.
func expectedSpan(r *recordings.Reader, lo, hi time.Time) time.Duration {
	first, last := r.Span()
	if !lo.IsZero() && lo.After(first) {
		first = lo
	}
	if !hi.IsZero() && hi.Before(last) {
		last = hi
	}
	return max(last.Sub(first), 0)
}

// loadBatch is the most samples the reading goroutine hands over at once,
// loadBatchValues the most values (a batch ends at the sample that reaches
// it), and loadBatches how many batches there are. Each hand-over wakes a
// goroutine on the other core: batches of 64 samples load a day of 8 GPUs
// in 0.94-1.0 s where batches of 16 took 1.11-1.17 s, with 5 % less CPU.
// A slot keeps the values of its last sample (about 12 KB of 8 GPUs, 64
// times that of 64 hosts), so a batch of wide samples holds fewer.
const loadBatch, loadBatchValues, loadBatches = 64, 1 << 16, 4

// loadedSample is a sample as read, with the recording's description as
// it stood when it was read, and the values the Engine derived of it
// (kept with the batch, to be reused).
type loadedSample struct {
	s       timeline.Sample
	info    timeline.SourceInfo
	derived timeline.Derived
	// vals are derived's numbers as float32 (Engine.AddDerived).
	vals []float32
	// spare are the values of the slot's last sample, filed, to read its
	// next sample into (Reader.Recycle).
	spare []float64
}

// readSamples reads the samples from lo to those the screen with its
// cursor at hi judged into batches sent on out, each one taken from spent
// (where they come back once filed), each sample into the values its slot
// came back with.
// warn is the damage that ended the reading; err a failure to read.
func readSamples(r *recordings.Reader, lo, hi time.Time, out chan<- []loadedSample, spent <-chan []loadedSample) (warn, err error) {
	batch, values := <-spent, 0
	for {
		// The slot this sample goes in, and the metrics it came back with.
		if n := len(batch); n < cap(batch) {
			slot := &batch[:n+1][n]
			r.Recycle(slot.spare) // nil, for a slot not used yet, hands back nothing
			slot.spare = nil
			// The slot's last sample is filed: the Engine and the store
			// read a sample's statuses only while they take it.
			r.RecycleProbes(slot.s.Probes)
			slot.s.Probes = nil
		}
		s, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			if !errors.As(err, new(*recordings.DamagedError)) {
				return nil, err
			}
			warn = err
			break
		}
		if s.At.Before(lo) {
			r.Recycle(s.Values)
			r.RecycleProbes(s.Probes)
			continue
		}
		// The samples the screen with its cursor at hi judged.
		if !hi.IsZero() && !s.At.Before(analysis.SamplesUntil(r.Info(), hi)) {
			break
		}
		// The slot's derived values stay, to be written over.
		batch = batch[:len(batch)+1]
		batch[len(batch)-1].s, batch[len(batch)-1].info = s, r.Info()
		values += len(s.Values)
		if len(batch) == loadBatch || values >= loadBatchValues {
			out <- batch
			batch, values = <-spent, 0
		}
	}
	if len(batch) > 0 {
		out <- batch
	}
	return warn, nil
}

// ExpectedSamples estimates a recording's sample count from its span and
// interval, a little over, so its store is sized once.
func ExpectedSamples(r *recordings.Reader) int {
	first, last := r.Span()
	iv := r.Header().Info.Interval
	if iv <= 0 || !last.After(first) {
		return 0
	}
	// A span and interval are what the file says: a lying index must not
	// size the store. A million samples is 12 days at 1 s; more grow it.
	return int(min(float64(last.Sub(first))/float64(iv)*1.05+16, 1<<20))
}
