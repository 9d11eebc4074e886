package frame

import (
	"testing"

	"github.com/gputop-dev/gputop/timeline"
)

// A stretch's ends found while its columns were held stay where they were
// found once the Engine lets go of those columns, in its own view; with
// none kept, or in a view of an earlier moment, the windows' start is all
// that is left.
func TestEdgesKeepTheEndsFoundOnColumnsHeld(t *testing.T) {
	f := &Frame{N: 100}
	f.Kept = &Kept{}
	f.Kept.Init(f, timeline.SourceInfo{})
	holds := func(i int) bool { return i >= 30 && i < 70 } // the condition
	windows := Span{20, 80}
	var ends Ends
	if sp, ok := f.Edges(&ends, windows, holds); !ok || sp != (Span{30, 70}) {
		t.Fatalf("held: %v %v, want [30, 70)", sp, ok)
	}
	// Columns up to 50 let go of: what the condition was there is unknown.
	f.N, f.HeldFrom = 200, 50
	unknown := func(i int) bool {
		if i < f.HeldFrom {
			t.Fatalf("column %d read, let go of", i)
		}
		return holds(i)
	}
	if sp, ok := f.Edges(&ends, windows, unknown); !ok || sp != (Span{30, 70}) {
		t.Errorf("kept: %v %v, want [30, 70)", sp, ok)
	}
	if sp, ok := f.Edges(nil, windows, unknown); !ok || sp != (Span{20, 70}) {
		t.Errorf("none kept: %v %v, want [20, 70)", sp, ok)
	}
	if sp, ok := f.View(150).Edges(&ends, windows, unknown); !ok || sp != (Span{20, 70}) {
		t.Errorf("an earlier moment: %v %v, want [20, 70)", sp, ok)
	}
	// Another stretch (its windows start elsewhere) finds its own.
	if sp, ok := f.Edges(&ends, Span{60, 80}, unknown); !ok || sp != (Span{50, 70}) {
		t.Errorf("another stretch: %v %v, want [50, 70)", sp, ok)
	}
}

// An end found beside the open column is not kept: the condition may go
// on past it once the column closes.
func TestEdgesKeepOnlyFinalEnds(t *testing.T) {
	f := &Frame{N: 81}
	f.Kept = &Kept{}
	f.Kept.Init(f, timeline.SourceInfo{})
	f.HeldFrom = 10
	holds := func(i int) bool { return i >= 5 && i < 79 }
	var ends Ends
	if sp, ok := f.Edges(&ends, Span{20, 81}, holds); !ok || sp != (Span{10, 79}) {
		t.Fatalf("%v %v, want [10, 79)", sp, ok)
	}
	// Column 80 closed, and the condition went on.
	f.N = 200
	holds = func(i int) bool { return i >= 5 && i < 90 }
	if sp, ok := f.Edges(&ends, Span{20, 81}, holds); !ok || sp != (Span{10, 90}) {
		t.Errorf("%v %v, want [10, 90)", sp, ok)
	}
}
