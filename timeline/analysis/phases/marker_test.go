package phases

import (
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

func TestMarkerPhases(t *testing.T) {
	at := func(sec int) time.Time { return timelinetest.T0.Add(time.Duration(sec) * time.Second) }
	mk := func(sec int, text string) timeline.Marker {
		return timeline.Marker{At: at(sec), Text: text, Origin: "job"}
	}
	type want struct {
		from, to int
		label    string
	}
	tests := []struct {
		name     string
		markers  []timeline.Marker
		from, to int
		want     []want
	}{
		{"each runs to the next, the last to the end",
			[]timeline.Marker{mk(10, "epoch 1"), mk(70, "eval"), mk(90, "epoch 2")}, 0, 200,
			[]want{{10, 70, "epoch 1"}, {70, 90, "eval"}, {90, 200, "epoch 2"}}},
		{"the marker current at from opens the window; later ones are left out",
			[]timeline.Marker{mk(10, "epoch 1"), mk(70, "eval"), mk(90, "epoch 2"), mk(300, "epoch 3")}, 50, 200,
			[]want{{50, 70, "epoch 1"}, {70, 90, "eval"}, {90, 200, "epoch 2"}}},
		{"markers at one instant: the last names the phase",
			[]timeline.Marker{mk(10, "load"), mk(10, "train")}, 0, 60,
			[]want{{10, 60, "train"}}},
		{"out of order input is sorted",
			[]timeline.Marker{mk(70, "eval"), mk(10, "train")}, 0, 100,
			[]want{{10, 70, "train"}, {70, 100, "eval"}}},
		{"a marker at the very end makes no phase",
			[]timeline.Marker{mk(10, "train"), mk(100, "done")}, 0, 100,
			[]want{{10, 100, "train"}}},
		{"an Xid or an alert that fired is an event, not a phase",
			[]timeline.Marker{mk(10, "train"), {At: at(40), Text: "Xid 48 on GPU0", Origin: timeline.XidOrigin},
				{At: at(50), Text: "alert GPUXidFatal firing: gpu=0", Origin: timeline.AlertOrigin}}, 0, 100,
			[]want{{10, 100, "train"}}},
		{"a person's mark within the job's phase is not the end of it",
			[]timeline.Marker{mk(10, "train"), mk(60, "Saving model checkpoint"),
				{At: at(61), Text: "looking at the checkpoint", Origin: "mark"}, mk(70, "train")}, 0, 100,
			[]want{{10, 60, "train"}, {60, 70, "Saving model checkpoint"}, {70, 100, "train"}}},
		{"without the job's phases a person's marks make them",
			[]timeline.Marker{{At: at(10), Text: "warmup", Origin: "key"}, {At: at(40), Text: "sweep", Origin: "mark"}}, 0, 100,
			[]want{{10, 40, "warmup"}, {40, 100, "sweep"}}},
		{"no markers, no phases", nil, 0, 100, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FromMarkers(tt.markers, at(tt.from), at(tt.to))
			if len(got) != len(tt.want) {
				t.Fatalf("got %d phases %+v, want %d", len(got), got, len(tt.want))
			}
			for i, w := range tt.want {
				p := got[i]
				if !p.Start.Equal(at(w.from)) || !p.End.Equal(at(w.to)) || p.Label != w.label || p.Kind != timeline.PhaseMarked {
					t.Errorf("phase %d = %v-%v %v %q, want %d-%d %q", i, p.Start.Sub(timelinetest.T0), p.End.Sub(timelinetest.T0), p.Kind, p.Label, w.from, w.to, w.label)
				}
			}
		})
	}
}
