package importer

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// PromQuery says what to read from Prometheus.
type PromQuery struct {
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
	// Client is the HTTP client; nil for one that gives up on a query
	// after two minutes.
	Client *http.Client
	// MaxPoints is the most points per series one query may ask for;
	// 0 for 10,000, under Prometheus' limit of 11,000.
	MaxPoints int
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
)

// PromSelector checks label matchers given as --match and returns them
// without braces, ready to follow a series name.
func PromSelector(match string) (string, error) {
	m := strings.TrimSpace(match)
	if m == "" {
		return "", nil
	}
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

// promJob is one query: a series over one stretch of the range.
type promJob struct {
	query      string
	start, end time.Time
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

// FetchPrometheus reads every GPU series of q from Prometheus'
// /api/v1/query_range, a series and a stretch of time per query, each
// stretch short enough to stay under Prometheus' points limit.
func FetchPrometheus(ctx context.Context, q PromQuery) (*PromResult, error) {
	base, err := url.Parse(q.URL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("%q is not Prometheus' address, such as http://prometheus:9090", q.URL)
	}
	matchers, err := PromSelector(q.Match)
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
		client = &http.Client{Timeout: queryTimeout}
	}

	var jobs []promJob
	for _, name := range PromSeriesNames() {
		query := name
		if matchers != "" {
			query += "{" + matchers + "}"
		}
		for _, c := range promChunks(q.From, q.To, q.Step, maxPoints) {
			jobs = append(jobs, promJob{query, c[0], c[1]})
		}
	}

	answers := make([]*promAnswer, len(jobs))
	// The first query alone: an address that does not answer, or matchers
	// Prometheus refuses, fail on it with the same words every time.
	if answers[0], err = queryRange(ctx, client, base, jobs[0], q.Step); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	next := make(chan int)
	for range parallelQueries {
		wg.Go(func() {
			for i := range next {
				a, err := queryRange(ctx, client, base, jobs[i], q.Step)
				if err != nil {
					cancel(err)
					continue
				}
				answers[i] = a
			}
		})
	}
feed:
	for i := 1; i < len(jobs); i++ {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}

	// In the order asked, so that which of two clashing series wins does
	// not depend on which answer came first.
	set := newPromSet()
	set.interval = q.Step
	for i, a := range answers {
		set.add(a)
		answers[i] = nil
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

// queryRange asks one query and reads its answer.
func queryRange(ctx context.Context, client *http.Client, base *url.URL, job promJob, step time.Duration) (*promAnswer, error) {
	u := base.JoinPath("api/v1/query_range")
	u.RawQuery = url.Values{
		"query": {job.query},
		"start": {unixSeconds(job.start)},
		"end":   {unixSeconds(job.end)},
		"step":  {strconv.FormatFloat(step.Seconds(), 'f', -1, 64)},
	}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, fmt.Errorf("cannot reach Prometheus at %s: %s", base.Redacted(), netReason(err))
	}
	defer resp.Body.Close()
	var got *promAnswer
	err = decodeAnswers(resp.Body, func(a *promAnswer) error {
		if got != nil {
			return errors.New("more than one answer")
		}
		got = a
		return nil
	})
	switch {
	case err != nil && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden):
		return nil, fmt.Errorf("%s answers %s: give a user and password in the URL, as http://user:password@host:9090", base.Redacted(), resp.Status)
	case err != nil && resp.StatusCode != http.StatusOK && !strings.HasPrefix(err.Error(), "Prometheus says"):
		// Not Prometheus' error: the address is something else.
		return nil, fmt.Errorf("%s answers %s to /%s: is it Prometheus' address?", base.Redacted(), resp.Status, strings.TrimPrefix(u.Path, "/"))
	case err != nil:
		return nil, fmt.Errorf("%v (query %s)", err, job.query)
	}
	return got, nil
}

// unixSeconds is t as query_range takes it, to the millisecond.
func unixSeconds(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', 3, 64)
}

// netReason is the part of a failed request's error that says why:
// "connect: connection refused", not the request again.
func netReason(err error) string {
	var op *net.OpError
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns):
		return dns.Error()
	case errors.As(err, &op):
		return op.Err.Error()
	case errors.Is(err, context.DeadlineExceeded):
		return "no answer in time"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}
