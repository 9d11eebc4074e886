package gpulist

import (
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/layout"
)

// LabelWidth is the label column of host lines: the longest name (cut at
// 16) between spaces.
func LabelWidth(names []string) int {
	n := 0
	for _, s := range names {
		n = max(n, min(16, len([]rune(s))))
	}
	return n + 2
}

// ValueWidth is the room right of a host line's sparkline:
// "  7/8 busy util  92% lo  12%  5.1kW WARN straggler-host".
const ValueWidth = 10 + 1 + 9 + 1 + 7 + 1 + 6 + 22

// Layout lays out a w x h screen of a session of several hosts (info,
// indexed by Index), the selected host having cores cores, and chooses
// the arrangement (Mode) for it:
//
//   - Tree, under a summary of them all, each host's line followed by its
//     GPUs, when every GPU fits whole at once: when a one-host screen with
//     as many rows fewer as there are host lines and the summary would
//     show all the GPUs without scrolling, with the rows per GPU it would
//     choose (2 hosts of 8 GPUs at 120x40 and 200x50);
//   - HostLines otherwise (80x24, or 64 hosts anywhere), one line per host
//     under the summary, scrolling as the GPU list does;
//   - OneHost where a host was opened: its line as a heading, then its GPUs
//     as a one-host screen draws them.
func (l *List) Layout(w, h int, info timeline.SourceInfo, cores int, oneRow bool) layout.Layout {
	label := LabelWidth(l.Names)
	if len(l.Names) == 0 {
		return layout.Compute(w, h, info, cores, oneRow)
	}
	// Where the rows of a layout computed one row shorter (for the summary
	// or heading) scroll, its own summary row takes that place and the row
	// saved stays blank; below the height that allows, the heading takes
	// the summary's row.
	oneShorter := func(info timeline.SourceInfo) layout.Layout {
		lay := layout.Compute(w, h-1, info, cores, oneRow)
		switch {
		case !lay.Fits:
			lay = layout.Compute(w, h, info, cores, oneRow)
		case lay.Summary == 1:
			lay.BlankRows++
		}
		lay.Summary = 1
		return lay
	}
	if l.Opened {
		sub := info
		sub.GPUs = make([]timeline.GPUInfo, 0, len(l.GPUs[l.Host]))
		for _, pos := range l.GPUs[l.Host] {
			sub.GPUs = append(sub.GPUs, info.GPUs[pos])
		}
		l.Mode = OneHost
		lay := oneShorter(sub)
		lay.WidenLabel(label, w)
		return lay
	}
	if lay := layout.Compute(w, h-len(l.Names)-1, info, cores, oneRow); lay.Fits && lay.Summary == 0 && len(info.GPUs) > 0 {
		l.Mode = Tree
		lay.Summary = 1
		lay.WidenLabel(label, w)
		return lay
	}
	l.Mode = HostLines
	// The list laid out as if each host were a GPU, then given one row a
	// host and the one-row host panel: what the GPU blocks and the RAM row
	// would have taken goes to the detail graph. One row a host keeps the
	// sparklines as long as the numbers allow, at every size.
	sub := info
	sub.GPUs = make([]timeline.GPUInfo, len(l.Names))
	for i := range sub.GPUs {
		sub.GPUs[i] = timeline.GPUInfo{Index: i, GPM: layout.AnyGPM(info)}
	}
	lay := oneShorter(sub)
	extra := lay.GPUsShown * (lay.GPURows - 1)
	if lay.GPURows > 1 {
		extra++
		lay.GPURows = 1
	}
	if lay.Detail > 0 {
		lay.Detail += extra
	} else {
		lay.BlankRows += extra
	}
	l.Shown = lay.GPUsShown
	lay.Values = ValueWidth
	// As wide as the hosts' names, and never narrower than the rows under
	// them need ("phase", " cpus"): hosts named a and b cut those to "pha".
	lay.Label = layout.RowLabelWidth
	lay.WidenLabel(label, w)
	return lay
}
