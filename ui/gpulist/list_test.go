package gpulist

import (
	"testing"

	"github.com/gputop-dev/gputop/timeline"
)

func down(at, _, _ int) int     { return at + 1 }
func pageDown(at, _, p int) int { return at + p }
func last(_, n, _ int) int      { return n - 1 }

// A list longer than its rows follows the selection as htop's does, and
// never scrolls past its end.
func TestTheListFollowsTheSelection(t *testing.T) {
	var l List
	for range 5 {
		l.Select(down, false, 16, 4)
		l.KeepInView(false, 16, 4)
	}
	if l.GPU != 5 || l.Top != 2 {
		t.Errorf("five down of 16 GPUs, 4 on screen: GPU%d from %d, want GPU5 from 2", l.GPU, l.Top)
	}
	l.Select(last, false, 16, 4)
	l.KeepInView(false, 16, 4)
	if l.GPU != 15 || l.Top != 12 {
		t.Errorf("end: GPU%d from %d, want GPU15 from 12", l.GPU, l.Top)
	}
	l.Select(pageDown, false, 16, 4)
	l.KeepInView(false, 16, 4)
	if l.GPU != 15 {
		t.Errorf("a page down from the last: GPU%d, want it to stay at 15", l.GPU)
	}
	l.KeepInView(false, 16, 40)
	if l.Top != 0 {
		t.Errorf("a resize that shows them all: from %d, want 0", l.Top)
	}
}

// Several hosts: a line per host where their GPUs do not fit; the keys
// move through the hosts, and the selected GPU is the selected host's.
func TestHostsMoveByHostWhereTheyDoNotFit(t *testing.T) {
	info := timeline.SourceInfo{Hosts: []timeline.HostInfo{{Name: "a"}, {Name: "b"}}}
	for h, name := range []string{"a", "b"} {
		for g := range 8 {
			info.GPUs = append(info.GPUs, timeline.GPUInfo{Index: 8*h + g, Host: name})
		}
	}
	var l List
	l.Index(info)
	lay := l.Layout(80, 24, info, 4, false)
	if !lay.Fits || l.Mode != HostLines {
		t.Fatalf("2 hosts of 8 GPUs at 80x24: mode %d (fits %v), want a line per host", l.Mode, lay.Fits)
	}
	if moved := l.Select(down, true, len(info.GPUs), lay.GPUsShown); !moved || l.HostName() != "b" {
		t.Errorf("down: host %q (moved %v), want b", l.HostName(), moved)
	}
	l.KeepInView(true, len(info.GPUs), lay.GPUsShown)
	if l.GPU != 8 {
		t.Errorf("host b selected: GPU at position %d, want its first (8)", l.GPU)
	}
	l.Opened = true
	l.Layout(80, 24, info, 4, false)
	if l.Mode != OneHost {
		t.Errorf("opened: mode %d, want one host", l.Mode)
	}
	if l.Layout(200, 50, info, 4, false); l.Opened && l.Mode != OneHost {
		t.Errorf("an opened host stays open at any size")
	}
	l.Opened = false
	if l.Layout(200, 50, info, 4, false); l.Mode != Tree {
		t.Errorf("2 hosts of 8 GPUs at 200x50: mode %d, want the tree", l.Mode)
	}
}
