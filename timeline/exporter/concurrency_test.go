package exporter

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// stalledClient is a scrape whose client reads nothing: its first write
// blocks until release is closed, so the scrape holds its slot.
type stalledClient struct {
	header  http.Header
	writing chan<- struct{}
	release <-chan struct{}
	once    sync.Once
	code    int
}

func (c *stalledClient) Header() http.Header { return c.header }

func (c *stalledClient) WriteHeader(code int) { c.code = code }

func (c *stalledClient) Write(p []byte) (int, error) {
	c.once.Do(func() { c.writing <- struct{}{} })
	<-c.release
	return len(p), nil
}

// At most MaxScrapes scrapes are served at once; one more is refused with
// 503 at once rather than queued behind them, and the slots come back when
// the slow ones end. Nothing here times anything: the refusals must come
// while the stalled scrapes still hold their slots, or the test hangs
// (failing at the bound below).
func TestConcurrentScrapesAreBoundedAndNeverQueue(t *testing.T) {
	const slots, extra = 4, 32
	x := New(Options{MaxScrapes: slots})
	s0, s1 := fixedSample(0, 1000), fixedSample(1, 1500)
	x.Observe(&s0, twoGPUs)
	x.Observe(&s1, twoGPUs)
	h := x.Handler()

	writing, release := make(chan struct{}, slots), make(chan struct{})
	stalled := make([]*stalledClient, slots)
	var held sync.WaitGroup
	for i := range stalled {
		stalled[i] = &stalledClient{header: http.Header{}, writing: writing, release: release}
		held.Go(func() { h.ServeHTTP(stalled[i], httptest.NewRequest("GET", "/metrics", nil)) })
	}
	for range slots {
		<-writing // every slot taken
	}

	refused := make(chan int, extra)
	var more sync.WaitGroup
	for range extra {
		more.Go(func() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
			refused <- rec.Code
		})
	}
	ended := make(chan struct{})
	go func() { more.Wait(); close(ended) }()
	select {
	case <-ended:
	case <-time.After(30 * time.Second):
		t.Fatal("scrapes beyond the limit waited for the stalled ones")
	}
	close(refused)
	for code := range refused {
		if code != http.StatusServiceUnavailable {
			t.Errorf("a scrape beyond the %d in flight got %d, want 503", slots, code)
		}
	}

	close(release)
	held.Wait()
	for i, c := range stalled {
		if c.code != 0 && c.code != http.StatusOK {
			t.Errorf("stalled scrape %d ended with %d", i, c.code)
		}
	}
	// The slots are free again.
	if body := scrape(t, h, ""); !strings.Contains(body, "DCGM_FI_DEV_GPU_UTIL{") {
		t.Error("no metrics after the stalled scrapes ended")
	}
}

// Many scrapes at once, none stalled: each is answered, 200 or 503, and
// every 200 is a whole exposition of the same snapshot.
func TestParallelScrapesGetWholeAnswers(t *testing.T) {
	const n = 64
	x := New(Options{})
	playDemo(t, x, "training", 5*time.Second)
	srv := httptest.NewServer(x.Handler()) // 127.0.0.1
	defer srv.Close()
	client := &http.Client{Timeout: 30 * time.Second}
	codes := make(chan int, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			resp, err := client.Get(srv.URL)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Error(err)
			}
			if resp.StatusCode == http.StatusOK && strings.Count(string(body), "\nDCGM_FI_DEV_GPU_UTIL{") != 8 {
				t.Errorf("a 200 without the 8 GPUs' utilisation")
			}
			codes <- resp.StatusCode
		})
	}
	wg.Wait()
	close(codes)
	ok := 0
	for c := range codes {
		switch c {
		case http.StatusOK:
			ok++
		case http.StatusServiceUnavailable:
		default:
			t.Errorf("status %d", c)
		}
	}
	if ok == 0 {
		t.Error("no scrape of", n, "was answered")
	}
	t.Logf("%d of %d parallel scrapes answered, the rest refused with 503", ok, n)
}
