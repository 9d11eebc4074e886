package prom

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gputop-dev/gputop/timeline/units"
)

// Query says what to read from Prometheus.
type Query struct {
	// URL is Prometheus' address, http://host:9090, with the path prefix
	// it is served under, if any (http://host/prometheus).
	URL string
	// Match is the label matchers that pick the job's hosts, as in a
	// PromQL selector: {job="dcgm",Hostname=~"node[1-8]"}, braces
	// optional; "" for every GPU Prometheus has.
	Match string
	// From and To bound the range; Step is the time between points.
	From, To time.Time
	Step     time.Duration
	// Client is the HTTP client; nil for one that gives up connecting
	// after 10 s. Its own Timeout, if any, is on top of the ones below.
	Client *http.Client
	// MaxPoints is the most points per series one query may ask for;
	// 0 for 10,000, under Prometheus' limit of 11,000.
	MaxPoints int
	// QueryTimeout bounds one query, from asking to the answer's last
	// byte; 0 for two minutes, Prometheus' own default limit on
	// evaluating a query (--query.timeout), past which it gives up itself.
	QueryTimeout time.Duration
	// IdleTimeout bounds how long an answer, once begun, may take to bring
	// each 4 KiB (minProgress) or its end; 0 for 30 s. Prometheus writes
	// an answer it has evaluated at the link's speed, so a pause or a drip
	// that long is a stalled server or link.
	IdleTimeout time.Duration
	// MaxAnswerBytes caps one answer; 0 for answerLimit's (at most
	// 64 MiB), a smaller one for tests.
	MaxAnswerBytes int64
}

// Bounds of a query.
const (
	defaultMaxPoints = 10_000
	// maxSeriesPoints bounds the points per series of one import: 4.7
	// years at a 15 s step; more is a mistyped --step.
	maxSeriesPoints = 10_000_000
	// parallelQueries is how many queries are in flight at once: enough
	// to overlap Prometheus' work with ours, few enough not to load it.
	parallelQueries = 4
	queryTimeout    = 2 * time.Minute
	idleTimeout     = 30 * time.Second
	dialTimeout     = 10 * time.Second
	// reorderWindow is how many answers may wait for one before them to
	// be added: a few more than are in flight.
	reorderWindow = 2 * parallelQueries
)

// maxImportPoints bounds the points one import keeps, at 8 bytes or less
// each (promvals.go): 256 MB at most. A day at 15 s of 8 hosts of 8 GPUs
// is 7.4 million; an hour of 600 hosts of 8, about 20 million. (A
// variable for tests.)
var maxImportPoints int64 = 32_000_000

// errTooManyPoints is an import past maxImportPoints: it fails, whichever
// query passed the bound, as the alerts' too.
type errTooManyPoints struct{ at string }

func (e errTooManyPoints) Error() string {
	return fmt.Sprintf("Prometheus at %s: more than %s in the range asked; narrow --match or --from/--to, or give a larger --step",
		e.at, units.Count(int(maxImportPoints), "point"))
}

// Selector checks label matchers given as --match and returns them
// without braces, ready to follow a series name.
func Selector(match string) (string, error) {
	m := strings.TrimSpace(match)
	if i := strings.IndexByte(m, '{'); i > 0 {
		return "", fmt.Errorf("%q names a series: give only label matchers such as {job=\"dcgm\"}; every GPU series is read", match)
	}
	if strings.HasPrefix(m, "{") {
		if !strings.HasSuffix(m, "}") {
			return "", fmt.Errorf("%q: label matchers end with }", match)
		}
		m = strings.TrimSpace(m[1 : len(m)-1])
	}
	if strings.ContainsAny(m, "{}") {
		return "", fmt.Errorf("%q is not one set of label matchers such as {job=\"dcgm\"}", match)
	}
	return m, nil
}

// promJob is one query: a series over one stretch of the range. The
// alerts' queries are optional: the GPU data matters more than the
// markers of when pages went out, so one of them failing is a note.
type promJob struct {
	query      string
	start, end time.Time
	optional   bool
}

// promChunks splits [from, to] into stretches of at most maxPoints points
// a step apart, each starting a step after the one before ends, so that
// no time is asked twice or left out.
func promChunks(from, to time.Time, step time.Duration, maxPoints int) [][2]time.Time {
	var out [][2]time.Time
	for start := from; !start.After(to); {
		end := start.Add(time.Duration(maxPoints-1) * step)
		if end.After(to) {
			end = to
		}
		out = append(out, [2]time.Time{start, end})
		start = end.Add(step)
	}
	return out
}

// Fetch reads every GPU series of q from Prometheus'
// /api/v1/query_range, a series and a stretch of time per query, each
// stretch short enough to stay under Prometheus' points limit; and the
// alerts that fired (promalerts.go), under the same bounds, whose failure
// is a note of the result rather than its error.
func Fetch(ctx context.Context, q Query) (*Result, error) {
	base, err := url.Parse(q.URL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("%q is not Prometheus' address, such as http://prometheus:9090", q.URL)
	}
	matchers, err := Selector(q.Match)
	if err != nil {
		return nil, err
	}
	switch {
	case !q.From.Before(q.To):
		return nil, fmt.Errorf("the range is empty: %s is not before %s", stamp(q.From), stamp(q.To))
	case q.Step < time.Millisecond:
		return nil, fmt.Errorf("step %v: must be 1ms or more", q.Step)
	case q.To.Sub(q.From)/q.Step >= maxSeriesPoints:
		return nil, fmt.Errorf("%v at a step of %v is over %d points per series: give a larger step", q.To.Sub(q.From), q.Step, maxSeriesPoints)
	}
	// Prometheus' times are milliseconds.
	q.From, q.To = q.From.Truncate(time.Millisecond), q.To.Truncate(time.Millisecond)
	maxPoints := q.MaxPoints
	if maxPoints <= 0 {
		maxPoints = defaultMaxPoints
	}
	client := q.Client
	if client == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.DialContext = (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}).DialContext
		client = &http.Client{Transport: tr}
	}
	lim := queryLimits{query: cmp.Or(q.QueryTimeout, queryTimeout), idle: cmp.Or(q.IdleTimeout, idleTimeout), bytes: q.MaxAnswerBytes}

	var jobs []promJob
	// The alerts' queries, without the matchers (alertsQuery), come last
	// (addReady); a Prometheus without rules has no ALERTS: its answers are empty.
	for _, name := range append(SeriesNames(), alertsQuery) {
		query, alerts := name, name == alertsQuery
		switch {
		case matchers == "" || alerts:
		case strings.HasPrefix(name, "{"):
			// A selector of its own ({__name__=~"…"}): the matchers join it.
			query = strings.TrimSuffix(name, "}") + "," + matchers + "}"
		default:
			query += "{" + matchers + "}"
		}
		for _, c := range promChunks(q.From, q.To, q.Step, maxPoints) {
			jobs = append(jobs, promJob{query, c[0], c[1], alerts})
		}
	}

	// Answers are added to the set in the order asked, so that which of
	// two clashing series wins does not depend on which came first; each
	// as soon as those before it are in, so that at most reorderWindow
	// answers wait in memory, never all of an import's (23 answers of
	// 63 MiB each took it out of memory).
	set := newPromSet()
	set.interval = q.Step
	var (
		mu      sync.Mutex // guards answers, failed, added and set
		answers = map[int]*promAnswer{}
		failed  = map[int]error{} // optional queries that failed
		added   = 0               // answers before this one are in the set
		moved   = sync.NewCond(&mu)
		budget  atomic.Int64 // points kept so far, against maxImportPoints
	)
	addReady := func() {
		for {
			a, ok := answers[added]
			err, bad := failed[added]
			switch {
			case bad:
				// Of the alerts, all stretches or none: a stretch missing
				// would split a firing in two. The alerts' queries come
				// last, so none after this one is kept either.
				set.alertsFailed = cmp.Or(set.alertsFailed, err)
				clear(set.alerts)
				set.alertSeriesLeft = 0
				delete(failed, added)
			case !ok:
				return
			default:
				if !jobs[added].optional || set.alertsFailed == nil {
					set.add(a)
				}
				delete(answers, added)
			}
			added++
			moved.Broadcast()
		}
	}
	ask := func(ctx context.Context, i int, buf *[]byte) error {
		a, err := queryRange(ctx, client, base, jobs[i], q.Step, lim, buf)
		if err == nil {
			if n := budget.Add(int64(a.points)); n > maxImportPoints {
				err = errTooManyPoints{base.Redacted()}
			}
		}
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err != nil && jobs[i].optional && !errors.As(err, new(errTooManyPoints)):
			failed[i] = err
		case err != nil:
			return err
		default:
			answers[i] = a
		}
		addReady()
		return nil
	}
	// Each worker reads its answers into one buffer: an answer is parsed
	// before the next is read.
	bufs := make([][]byte, parallelQueries)
	// The first query alone: an address that does not answer, or matchers
	// Prometheus refuses, fail on it with the same words every time.
	if err := ask(ctx, 0, &bufs[0]); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// A cancel wakes the feeder waiting for room.
	stop := context.AfterFunc(ctx, func() { mu.Lock(); moved.Broadcast(); mu.Unlock() })
	defer stop()
	var wg sync.WaitGroup
	next := make(chan int)
	for w := range parallelQueries {
		wg.Go(func() {
			for i := range next {
				if err := ask(ctx, i, &bufs[w]); err != nil {
					cancel(err)
				}
			}
		})
	}
feed:
	for i := 1; i < len(jobs); i++ {
		// Not more than reorderWindow answers ahead of the first not yet
		// in: a slow query holds back the others, not memory.
		mu.Lock()
		for i >= added+reorderWindow && ctx.Err() == nil {
			moved.Wait()
		}
		mu.Unlock()
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	bufs = nil // free before the result is built
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	// A password in the URL (basic auth) stays out of the recording.
	origin := base.Redacted()
	if matchers != "" {
		origin += " {" + matchers + "}"
	}
	res, err := set.result(origin)
	if errors.Is(err, errNoSeries) {
		what := "no GPU series"
		if matchers != "" {
			what = fmt.Sprintf("no GPU series match {%s}", matchers)
		}
		return nil, fmt.Errorf("%s from %s to %s in Prometheus at %s", what, stamp(q.From), stamp(q.To), base.Redacted())
	}
	return res, err
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// queryLimits bound one query: its whole time, the wait for each byte of
// its answer once begun, and the answer's size (0: answerLimit's).
type queryLimits struct {
	query, idle time.Duration
	bytes       int64
}

// queryRange asks one query and reads its answer, within lim: a slow or
// stalled server, or an answer larger than the query could honestly be,
// fails in one line that says which and what to do. The answer is read
// into *buf, which keeps the room for the next: what is parsed from it
// holds none of its bytes.
func queryRange(ctx context.Context, client *http.Client, base *url.URL, job promJob, step time.Duration, lim queryLimits, buf *[]byte) (*promAnswer, error) {
	u := base.JoinPath("api/v1/query_range")
	u.RawQuery = url.Values{
		"query": {job.query},
		"start": {unixSeconds(job.start)},
		"end":   {unixSeconds(job.end)},
		"step":  {strconv.FormatFloat(step.Seconds(), 'f', -1, 64)},
	}.Encode()
	at := base.Redacted()
	query := serverText(job.query)
	errSlow := fmt.Errorf("Prometheus at %s did not answer query %s within %v: give a shorter --from/--to, a larger --step or a narrower --match", at, query, lim.query)
	qctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	deadline := time.AfterFunc(lim.query, func() { cancel(errSlow) })
	defer deadline.Stop()
	req, err := http.NewRequestWithContext(qctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		if qctx.Err() != nil {
			return nil, context.Cause(qctx)
		}
		return nil, fmt.Errorf("cannot reach Prometheus at %s: %s", at, netReason(err))
	}
	defer resp.Body.Close()
	limit := lim.bytes
	if limit <= 0 {
		limit = answerLimit(int(job.end.Sub(job.start)/step) + 1)
	}
	// The answer must keep coming: minProgress bytes (or its end) within
	// lim.idle of the last minProgress.
	pr := &progressReader{r: resp.Body, d: lim.idle}
	pr.timer = time.AfterFunc(lim.idle, func() {
		if n := pr.since.Load(); n > 0 {
			cancel(fmt.Errorf("Prometheus at %s sent its answer too slowly: %s in %v (query %s)", at, units.Count(int(n), "byte"), lim.idle, query))
		} else {
			cancel(fmt.Errorf("Prometheus at %s sent nothing for %v (query %s)", at, lim.idle, query))
		}
	})
	defer pr.timer.Stop()
	body, err := readLimited(*buf, pr, limit, resp.ContentLength)
	if cap(body) > cap(*buf) {
		*buf = body[:0]
	}
	switch {
	case errors.As(err, new(errAnswerTooLarge)):
		return nil, fmt.Errorf("Prometheus at %s: the answer to query %s %v; narrow --match or --from/--to, or give a larger --step", at, query, err)
	case err != nil && qctx.Err() != nil:
		return nil, context.Cause(qctx)
	case err != nil:
		return nil, fmt.Errorf("Prometheus at %s: reading the answer to query %s: %s", at, query, netReason(err))
	}
	var got *promAnswer
	// Prometheus evaluates a query_range at start + k × step, up to end.
	win := &pointWindow{from: job.start.UnixMilli(), to: job.end.UnixMilli(), most: int(job.end.Sub(job.start)/step) + 1}
	err = decodeAnswerBytes(body, win, func(a *promAnswer) error {
		if got != nil {
			return errors.New("more than one answer")
		}
		got = a
		return nil
	})
	status := serverText(resp.Status)
	switch {
	case err != nil && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden):
		return nil, fmt.Errorf("%s answers %s: give a user and password in the URL, as http://user:password@host:9090", at, status)
	case err != nil && resp.StatusCode != http.StatusOK && !strings.HasPrefix(err.Error(), "Prometheus says"):
		// Not Prometheus' error: the address is something else.
		return nil, fmt.Errorf("%s answers %s to /%s: is it Prometheus' address?", at, status, strings.TrimPrefix(u.Path, "/"))
	case err != nil:
		return nil, fmt.Errorf("%v (query %s)", err, query)
	}
	return got, nil
}

// minProgress is how much of an answer must arrive in each IdleTimeout: a
// server that drips a byte a second never stalls, yet never answers. A
// real Prometheus writes an evaluated answer at the link's speed; 4 KiB in
// 30 s is a link under 140 bytes a second.
const minProgress = 4 << 10

// progressReader restarts its timer each time minProgress bytes have come
// since it last did: the timer fires (and ends the query) when they take
// longer than d.
type progressReader struct {
	r     io.Reader
	timer *time.Timer
	d     time.Duration
	since atomic.Int64 // bytes since the timer was last restarted
}

func (r *progressReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if r.since.Add(int64(n)) >= minProgress {
		r.since.Store(0)
		r.timer.Reset(r.d)
	}
	return n, err
}

// unixSeconds is t as query_range takes it, to the millisecond.
func unixSeconds(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', 3, 64)
}

// netReason is the part of a failed request's error that says why:
// "connect: connection refused", not the request again.
func netReason(err error) string {
	if dns, ok := errors.AsType[*net.DNSError](err); ok {
		return dns.Error()
	}
	if op, ok := errors.AsType[*net.OpError](err); ok {
		return op.Err.Error()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "no answer in time"
	}
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return ue.Err.Error()
	}
	return err.Error()
}
