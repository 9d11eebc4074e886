package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/probes/marks"
	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// gputop run reads the rate of an unchanged job from its tqdm-style bar:
// the report states both of its rates within 5 % and when it fell within
// 2 s, and the energy and cost of each unit of its work.
func TestRunReportsTheJobsRate(t *testing.T) {
	if testing.Short() {
		t.Skip("a 20 s job")
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		timelinetest.Unavailable(t, "python3 is not installed")
	}
	isolateMarks(t)
	path := filepath.Join(t.TempDir(), "job.gtr")
	te := newTestEnv()
	done := te.start("run", "-o", path, "--demo=input-bound", "--price-kwh", "0.30", "--price-gpu-hour", "2.50",
		"--", python, "testdata/jobs/progress_job.py")
	if code := waitExit(t, done, te); code != 0 {
		t.Fatalf("run exited %d; stderr:\n%s", code, te.err.String())
	}
	var change float64
	if _, err := fmt.Sscanf(te.out.String(), "rate changes at %f", &change); err != nil {
		t.Fatalf("the job did not say when its rate changes: %q", te.out.String())
	}
	text := te.err.String()
	for _, want := range []string{"WORK AND ENERGY", "job progress: ", "it/s", "per it: ", "cost: "} {
		if !strings.Contains(text, want) {
			t.Errorf("the report on stderr lacks %q:\n%s", want, text)
		}
	}

	rep := newTestEnv()
	if code := run([]string{"report", "--format", "json", "--price-kwh", "0.30", path}, &rep.env); code != 0 {
		t.Fatalf("report exited %d: %s", code, rep.err.String())
	}
	var doc struct {
		Start time.Time `json:"start"`
		Work  struct {
			Energy   float64 `json:"energy_j"`
			Cost     *struct{ Total float64 }
			Progress *struct {
				Unit   string  `json:"unit"`
				Done   float64 `json:"done"`
				PerIt  float64 `json:"energy_per_unit_j"`
				Levels []struct {
					Start float64 `json:"start_s"`
					Rate  float64 `json:"rate_per_s"`
				} `json:"levels"`
			} `json:"progress"`
		} `json:"work"`
	}
	if err := json.Unmarshal([]byte(rep.out.String()), &doc); err != nil {
		t.Fatal(err)
	}
	p := doc.Work.Progress
	if p == nil {
		t.Fatalf("the report has no progress:\n%s", rep.out.String())
	}
	if p.Unit != "it" || math.Abs(p.Done-750) > 30 {
		t.Errorf("progress: %v %s, want about 750 it", p.Done, p.Unit)
	}
	if len(p.Levels) != 2 {
		t.Fatalf("rate levels %+v, want two", p.Levels)
	}
	if r := p.Levels[0].Rate; math.Abs(r-50) > 50*0.05 {
		t.Errorf("first rate %.2f it/s, want 50 within 5 %%", r)
	}
	if r := p.Levels[1].Rate; math.Abs(r-25) > 25*0.05 {
		t.Errorf("second rate %.2f it/s, want 25 within 5 %%", r)
	}
	at := float64(doc.Start.UnixNano())/1e9 + p.Levels[1].Start
	if math.Abs(at-change) > 2 {
		t.Errorf("the drop at %.2f, want %.2f within 2 s", at, change)
	}
	if !(doc.Work.Energy > 0) || !(p.PerIt > 0) || doc.Work.Cost == nil || !(doc.Work.Cost.Total > 0) {
		t.Errorf("energy %v J, %v J/it, cost %+v: want all known", doc.Work.Energy, p.PerIt, doc.Work.Cost)
	}
}

// The Python example (examples/python/gputop_mark.py) puts its markers and
// its progress into a real `gputop record`, through the session socket.
func TestPythonExampleMarksAndStatesProgress(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		timelinetest.Unavailable(t, "python3 is not installed")
	}
	isolateMarks(t)
	path := filepath.Join(t.TempDir(), "py.gtr")
	te := newTestEnv()
	done := te.start("record", "-o", path, "--demo=training", "--interval", "100ms")
	waitForSamples(t, path, 2)
	dir, err := marks.SessionDir()
	if err != nil {
		t.Fatal(err)
	}
	socks, _ := filepath.Glob(filepath.Join(dir, "*.sock"))
	if len(socks) != 1 {
		t.Fatalf("sockets %q, want the record's one", socks)
	}
	cmd := exec.Command(python, "examples/python/gputop_mark.py", "100")
	cmd.Env = append(os.Environ(), marks.SocketEnv+"="+socks[0])
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("the example: %v, %q", err, out)
	}
	// The last reading is kept once no other has come for 3 s (a
	// session other than run cannot tell the job's end from a stall).
	time.Sleep(3500 * time.Millisecond)
	te.sigs <- syscall.SIGINT
	if code := waitExit(t, done, te); code != 0 {
		t.Fatalf("record ended with %d: %s", code, te.err.String())
	}
	r, err := recordings.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var markers []string
	var last timeline.Progress
	for {
		s, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range s.Markers {
			markers = append(markers, m.Text)
		}
		for _, p := range s.Progress {
			last = p
		}
	}
	if want := []string{"epoch 0", "eval"}; !slices.Equal(markers, want) {
		t.Errorf("markers %q, want %q (progress lines are not markers)", markers, want)
	}
	if last.Unit != "step" || last.Done != 100 || last.Origin != "mark" {
		t.Errorf("the last progress kept %+v, want 100 steps from mark", last)
	}
}
