package prom

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
)

// A hostile or broken server on 127.0.0.1 (httptest): every fault ends
// the import in one line that says what happened and what to do, reads no
// more than the answer's limit, never waits past its timeouts, and prints
// none of the server's escape sequences.
func TestFetchPrometheusFromAHostileServer(t *testing.T) {
	point := []byte(`[1764057600.000,"97"],`)
	for _, c := range []struct {
		name    string
		handler func(w http.ResponseWriter, r *http.Request)
		lim     Query
		want    string
	}{
		{
			name: "a huge answer",
			handler: func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0"},"values":[`)
				for r.Context().Err() == nil {
					if _, err := w.Write(bytes.Repeat(point, 1000)); err != nil {
						return
					}
				}
			},
			lim:  Query{MaxAnswerBytes: 1 << 20},
			want: "Prometheus at URL: the answer to query DCGM_FI_DEV_GPU_UTIL exceeded 1 MiB; narrow --match or --from/--to, or give a larger --step",
		},
		{
			name: "a huge length declared",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", "200000000000")
				io.WriteString(w, `{"status":`)
			},
			want: "the answer to query DCGM_FI_DEV_GPU_UTIL exceeded 53 MiB",
		},
		{
			name: "a slow drip",
			handler: func(w http.ResponseWriter, r *http.Request) {
				for r.Context().Err() == nil {
					w.Write([]byte(" "))
					w.(http.Flusher).Flush()
					time.Sleep(10 * time.Millisecond)
				}
			},
			lim:  Query{IdleTimeout: 300 * time.Millisecond},
			want: "Prometheus at URL sent its answer too slowly: ",
		},
		{
			name: "a stall once begun",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusOK)
				w.(http.Flusher).Flush()
				<-r.Context().Done()
			},
			lim:  Query{IdleTimeout: 200 * time.Millisecond},
			want: "Prometheus at URL sent nothing for 200ms (query DCGM_FI_DEV_GPU_UTIL)",
		},
		{
			name:    "no answer at all",
			handler: func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() },
			lim:     Query{QueryTimeout: 300 * time.Millisecond},
			want:    "Prometheus at URL did not answer query DCGM_FI_DEV_GPU_UTIL within 300ms: give a shorter --from/--to",
		},
		{
			name: "escape sequences in its error",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"status":"error","errorType":"bad_data\u001b[2J","error":"\u001b]0;pwned\u0007\u001b[31mboom\u001b[0m\u009b1m"}`)
			},
			want: "Prometheus says bad_data: boom (query DCGM_FI_DEV_GPU_UTIL)",
		},
		{
			name: "an endless error",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusUnprocessableEntity)
				fmt.Fprintf(w, `{"status":"error","errorType":"execution","error":"%s"}`, strings.Repeat("no. ", 100_000))
			},
			want: "Prometheus says execution: no. no. ",
		},
		{
			name: "a 500 with HTML",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(http.StatusInternalServerError)
				io.WriteString(w, "<html><head><title>502 Bad Gateway</title></head><body>\x1b[31mnginx</body></html>")
			},
			want: "URL answers 500 Internal Server Error to /api/v1/query_range: is it Prometheus' address?",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(c.handler))
			defer srv.Close()
			q := c.lim
			q.URL, q.From, q.To, q.Step = srv.URL, fakeStart, fakeStart.Add(time.Hour), 15*time.Second
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			done := make(chan error, 1)
			go func() {
				_, err := Fetch(context.Background(), q)
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(time.Minute): // a hang guard, not a timing
				t.Fatal("the import never ended")
			}
			runtime.ReadMemStats(&after)
			want := strings.ReplaceAll(c.want, "URL", srv.URL)
			msg := fmt.Sprint(err)
			if err == nil || !strings.Contains(msg, want) || strings.ContainsAny(msg, "\n\x1b\x07\u009b") || len(msg) > 600 {
				t.Errorf("error %q, want one clean line under 600 bytes with %q", msg[:min(len(msg), 600)], want)
			}
			// What it allocated is bounded by the limit, not by what the
			// server sends (the huge one sends until it is cut off).
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("allocated %d MiB", grew>>20)
			}
		})
	}
}

// The limit follows what a query could honestly return, capped.
func TestAnswerLimit(t *testing.T) {
	if got := answerLimit(1); got > 10<<20 {
		t.Errorf("a one-point query may take %d MiB", got>>20)
	}
	if got := answerLimit(10_000); got != maxAnswerBytes {
		t.Errorf("a full query may take %d bytes, want the cap", got)
	}
}

// Saved answers are read one at a time: concatenated, in an array, with
// brackets and quotes inside strings; one over the limit is refused
// without reading the rest.
func TestSplitAnswers(t *testing.T) {
	a := `{"status":"success","data":{"x":"a } ] \" {"}}`
	for _, c := range []struct {
		in   string
		want []string
	}{
		{a + a, []string{a, a}},
		{"\n[ " + a + " ,\n" + a + "]\n", []string{a, a}},
		{"[]", nil},
		{`[1,2]`, []string{"[1"}},
		{`"just a string" {}`, []string{`"just a string"`, "{}"}},
		{a[:20], []string{a[:20]}},
	} {
		var got []string
		err := splitAnswers(strings.NewReader(c.in), 1<<20, func(b []byte) error {
			got = append(got, string(b))
			if b[0] == '[' {
				return errors.New("stop")
			}
			return nil
		})
		if len(got) != len(c.want) || (len(got) > 0 && got[0] != c.want[0]) {
			t.Errorf("%q: %q %v, want %q", c.in, got, err, c.want)
		}
	}
	big := `{"status":"success","data":{"result":[` + strings.Repeat(`"x",`, 1000) + `"x"]}}`
	err := splitAnswers(strings.NewReader(big+big), 1024, func([]byte) error { return nil })
	var tooLarge errAnswerTooLarge
	if !errors.As(err, &tooLarge) {
		t.Errorf("an answer over the limit: %v", err)
	}
}
