package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/alloc"
)

// Who holds each GPU (issue 46) comes with the process tier's samples
// (Sample.Owners) and is kept by the store as it changes (OwnersAt), so
// the cursor reads the owners of its moment, live or in a replay. The
// allocations panel (ui/alloc) lists them; the GPU list, the detail title
// and a host's line name each GPU's owner beside it, where there is room.

// ownerOf is who held GPU index gpu at t, "" parts where nobody is known.
func (s *session) ownerOf(gpu int, at time.Time) timeline.Owner {
	// The first of its owners where it has several (a GPU shared by time
	// slicing): the allocations panel lists them all.
	for _, o := range s.store.OwnersAt(at) {
		if o.GPU == gpu {
			return o
		}
	}
	return timeline.Owner{}
}

// allocAt is the allocations panel's data at t: the owners, and which GPUs
// a process held then, so that an owner whose GPUs run nothing says so.
func (s *session) allocAt(at time.Time) alloc.Panel {
	procs, _ := s.store.ProcessesAt(at)
	var busy func(int) bool
	if procs != nil {
		busy = func(g int) bool {
			return slices.ContainsFunc(procs, func(p timeline.Process) bool { return p.GPU == g })
		}
	}
	return alloc.Of(s.store.OwnersAt(at), busy, s.gpuNames.Of)
}

// viewAlloc is the allocations panel in the rows the layout gave it.
func (f *frame) viewAlloc() []string {
	if f.lay.Alloc == 0 {
		return nil
	}
	p := f.allocAt(f.at)
	return alloc.View(f.pen(), &p, f.lay.Alloc)
}

// noteOwners notes what the layout takes of the newest owners: the screen
// is laid out again where the rows the allocations panel wants or the
// widest owner changed (the first reading, an owner more or less).
// The layout follows the newest reading, not the cursor's, so it stays put
// as the cursor moves.
func (s *session) noteOwners() (relayout bool) {
	owners := s.store.OwnersAt(s.store.Last())
	p := alloc.Of(owners, nil, nil)
	w := 0
	for _, o := range owners {
		w = max(w, len([]rune(alloc.Short(o))))
	}
	was := s.owned
	s.owned = owned{rows: p.Rows(), width: min(w, maxOwnerLabel)}
	return s.owned != was
}

// maxOwnerLabel bounds the owner's width in the GPU list's label column:
// a long pod name is cut there (the allocations panel and the detail
// title have it whole), so the sparklines keep their room.
const maxOwnerLabel = 18

// owned is what the layout takes from the newest ownership reading: the
// rows the allocations panel wants, and the widest owner's short name.
type owned struct{ rows, width int }

// hostOwners is who holds a host's GPUs (positions in info.GPUs) in a few
// words: "pod llm-train-0", "pod llm-train-0, job 4242", "3 owners".
func (s *session) hostOwners(gpus []int, at time.Time) string {
	owners := s.store.OwnersAt(at)
	if len(owners) == 0 {
		return ""
	}
	var names []string
	for _, pos := range gpus {
		if pos >= len(s.info.GPUs) {
			continue
		}
		if o := alloc.Short(s.ownerOf(s.info.GPUs[pos].Index, at)); o != "" && !slices.Contains(names, o) {
			names = append(names, o)
		}
	}
	if len(names) > 2 {
		return fmt.Sprintf("%d owners", len(names))
	}
	return strings.Join(names, ", ")
}
