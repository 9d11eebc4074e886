package exporter

import (
	"fmt"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/probes/demo"
	"github.com/gputop-dev/gputop/timeline"
)

// Each hint that holds goes out three ways per GPU: active (with its
// severity), its episode's first-seen time, and its evidence. The
// evidence's label set stays the same while the episode goes on, though
// the hint's own evidence text moves with every sample: no series churn.
func TestHintEvidenceAndFirstSeenAreStablePerEpisode(t *testing.T) {
	x := New(Options{})
	clock := probes.NewFastClock(t0)
	node, err := demo.New("imbalance", 1, clock)
	if err != nil {
		t.Fatal(err)
	}
	sess := probes.OpenSession(probes.SessionConfig{Interval: time.Second, Machine: node.Machine(), Clock: clock})
	t.Cleanup(func() { _ = sess.Close() })
	play := func(d time.Duration) {
		for range int(d / time.Second) {
			observeNext(t, x, sess)
		}
	}

	play(2 * time.Minute)
	infos := seriesLabels(t, x, hintInfoName)
	firstSeen, _ := gather(t, x)
	if len(infos) == 0 {
		t.Fatal("no gputop_hint_info after 2 minutes of imbalance")
	}
	active := seriesLabels(t, x, hintActiveName)
	if len(active) != len(infos) || len(seriesLabels(t, x, hintFirstSeenName)) != len(infos) {
		t.Fatalf("%d active, %d info, %d first-seen series: one of each per hint and GPU",
			len(active), len(infos), len(seriesLabels(t, x, hintFirstSeenName)))
	}
	evidence := map[string]string{}
	for _, l := range infos {
		if l["evidence"] == "" || l["id"] == "" {
			t.Errorf("info series without evidence or id: %v", l)
		}
		if _, has := l["severity"]; has {
			t.Errorf("info series with a severity (it may change within an episode): %v", l)
		}
		evidence[l["id"]+"/"+l["gpu"]] = l["evidence"]
	}
	since, ok := firstSeen[hintFirstSeenName+"{0}/gpu-imbalance"]
	if !ok {
		t.Fatalf("no first-seen time of gpu-imbalance on GPU0: %v", firstSeen)
	}
	at := time.Unix(0, int64(since*1e9))
	if at.Before(t0) || at.After(t0.Add(2*time.Minute)) {
		t.Errorf("gpu-imbalance first seen at %v, not within the 2 minutes played from %v", at, t0)
	}

	// A minute more, looked at every 5 s: each episode (its first-seen
	// time) shows at most two evidence texts, its first provisional reading
	// and its first firm one, though the hint's own text moved.
	texts := map[string]map[string]bool{}
	moved := false
	for range 12 {
		before := liveEvidence(x)
		play(5 * time.Second)
		moved = moved || liveEvidence(x) != before
		seen, _ := gather(t, x)
		for _, l := range seriesLabels(t, x, hintInfoName) {
			k := l["id"] + "/" + l["gpu"]
			episode := fmt.Sprint(k, seen[hintFirstSeenName+"{"+l["gpu"]+"}/"+l["id"]])
			if texts[episode] == nil {
				texts[episode] = map[string]bool{evidence[k]: true}
			}
			texts[episode][l["evidence"]] = true
			if len(texts[episode]) > 2 {
				t.Errorf("%s: more than two evidence labels within one episode: %v", k, texts[episode])
			}
		}
	}
	if !moved {
		t.Error("the hints' own evidence did not move in a minute: the test shows nothing")
	}
	again, _ := gather(t, x)
	if again[hintFirstSeenName+"{0}/gpu-imbalance"] != since {
		t.Errorf("first seen moved from %v to %v within one episode", since, again[hintFirstSeenName+"{0}/gpu-imbalance"])
	}
}

// liveEvidence is the evidence of the Exporter's Judge's hints now.
func liveEvidence(x *Exporter) string {
	x.mu.Lock()
	defer x.mu.Unlock()
	var s string
	for _, h := range x.judge.Hints(x.judge.Last()) {
		s += h.Evidence + "\n"
	}
	return s
}

// An episode that ends takes its kept evidence with it; the next episode
// of the same hint on the same GPU is exported with its own.
func TestHintEpisodesForgetWhatNoLongerHolds(t *testing.T) {
	var e hintEpisodes
	labels := gpuLabelsOf(twoGPUs)
	h := func(start time.Time, evidence string, provisional bool) []timeline.Hint {
		return []timeline.Hint{{ID: timeline.HintGPUIdle, GPUs: []int{1}, Ongoing: true, Start: start,
			Episodes: []timeline.Episode{{Start: start, GPUs: []int{1}, Evidence: evidence, Provisional: provisional}}}}
	}
	check := func(got []hintSeries, evidence string) {
		t.Helper()
		if len(got) != 1 || got[0].evidence != evidence || got[0].gpu != "1" {
			t.Fatalf("got %+v, want one series on gpu 1 with evidence %q", got, evidence)
		}
	}
	check(e.series(h(t0, "so far 25s", true), labels), "so far 25s")
	check(e.series(h(t0, "30s idle", false), labels), "30s idle") // firm: replaces the provisional reading
	check(e.series(h(t0, "31s idle", false), labels), "30s idle") // then kept
	check(e.series(h(t0, "5m idle", false), labels), "30s idle")  // however it grows
	if got := e.series(nil, labels); len(got) != 0 || len(e.kept) != 0 {
		t.Fatalf("an ended hint is kept: %+v %v", got, e.kept)
	}
	check(e.series(h(t0.Add(time.Hour), "40s idle", false), labels), "40s idle")
}
