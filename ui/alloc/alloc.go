package alloc

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/draw"
)

// Group is one owner and the GPUs allocated to it, in order.
type Group struct {
	Owner timeline.Owner // its GPU is the first of GPUs
	GPUs  []int
	// Idle says no process ran on any of its GPUs at the cursor.
	Idle bool
}

// Panel is what the panel shows: the owners at the cursor, grouped.
type Panel struct {
	// Known says an ownership reading had come by the cursor; without
	// one the panel says it knows of none yet.
	Known  bool
	Groups []Group
	// Name names a list of GPUs as the session does ("GPU0-3", "node3
	// GPU2").
	Name func(gpus []int) string
}

// Of groups owners by who they are, in the order of each one's first GPU;
// busy says which GPUs have a process (nil: unknown, none marked idle).
func Of(owners []timeline.Owner, busy func(gpu int) bool, name func([]int) string) Panel {
	p := Panel{Known: owners != nil, Name: name}
	sorted := slices.Clone(owners)
	slices.SortStableFunc(sorted, func(a, b timeline.Owner) int { return a.GPU - b.GPU })
	for _, o := range sorted {
		// The same owner but for the GPU: the group's first GPU read as o's.
		i := slices.IndexFunc(p.Groups, func(g Group) bool { k := g.Owner; k.GPU = o.GPU; return k == o })
		if i < 0 {
			p.Groups = append(p.Groups, Group{Owner: o, Idle: busy != nil})
			i = len(p.Groups) - 1
		}
		g := &p.Groups[i]
		g.GPUs = append(g.GPUs, o.GPU)
		if busy != nil && busy(o.GPU) {
			g.Idle = false
		}
	}
	return p
}

// Rows is how many rows the panel would take whole: its title and a row
// an owner; 0 where no reading has come (a node without Kubernetes or
// Slurm has no panel).
func (p *Panel) Rows() int {
	if !p.Known {
		return 0
	}
	return 1 + max(1, len(p.Groups))
}

// Short is an owner in a word or two, for beside a GPU: "pod llm-train-0",
// "job 4242"; "" where nothing is known.
func Short(o timeline.Owner) string {
	switch {
	case o.Pod != "":
		return "pod " + timeline.CleanText(o.Pod)
	case o.Job != "":
		return "job " + timeline.CleanText(o.Job)
	}
	return ""
}

// Long is an owner in full: "pod team-a/llm-train-0 (trainer)", "Slurm
// job 4242 (alice, gpu)".
func Long(o timeline.Owner) string {
	var b strings.Builder
	switch {
	case o.Pod != "":
		b.WriteString("pod ")
		if o.Namespace != "" {
			b.WriteString(o.Namespace + "/")
		}
		b.WriteString(o.Pod)
		if o.Container != "" {
			b.WriteString(" (" + o.Container + ")")
		}
	case o.Job != "":
		b.WriteString("Slurm job " + o.Job)
		who := slices.DeleteFunc([]string{o.User, o.Partition}, func(s string) bool { return s == "" })
		if len(who) > 0 {
			b.WriteString(" (" + strings.Join(who, ", ") + ")")
		}
	default:
		return ""
	}
	return timeline.CleanText(b.String())
}

// View draws the panel in rows rows: the title, then a row an owner, its
// GPUs first; where rows are fewer than the owners need, the owners packed
// into the rows after the title's words, what does not fit counted.
func View(pen draw.Pen, p *Panel, rows int) []string {
	if rows <= 0 || !p.Known {
		return nil
	}
	title := pen.NewLine(pen.Width)
	title.Add(" ALLOCATIONS", pen.Theme.Title)
	if len(p.Groups) == 0 {
		title.Add("  no GPU is allocated", pen.Theme.Dim)
		return draw.PadBlank([]string{title.String()}, rows)
	}
	if rows > len(p.Groups) {
		out := []string{title.String()}
		w := 0 // the widest name of a group's GPUs, so the owners line up
		for _, g := range p.Groups {
			w = max(w, len([]rune(p.Name(g.GPUs))))
		}
		for _, g := range p.Groups {
			ln := pen.NewLine(pen.Width)
			ln.Add(" "+draw.PadRight(p.Name(g.GPUs), w), pen.Theme.Bold)
			ln.Add("  ", draw.Ink{}).AddText(Long(g.Owner), draw.Ink{})
			if g.Idle {
				ln.Add("  no process", pen.Theme.Warn)
			}
			out = append(out, ln.String())
		}
		return draw.PadBlank(out, rows)
	}
	return packed(pen, p, title, rows)
}

// packed is the owners in fewer rows than one each: "GPU0-3 pod
// llm-train-0 · GPU4-5 job 4242", from the title's row on, and "+N" for
// the owners that did not fit.
func packed(pen draw.Pen, p *Panel, ln *draw.Line, rows int) []string {
	sep := pen.Glyph.Sep
	var out []string
	lead := "  " // before the first owner of a row: after the title, two spaces
	for i, g := range p.Groups {
		item := p.Name(g.GPUs) + " " + Short(g.Owner)
		if g.Idle {
			item += " (idle)" // in words too: colour alone says nothing without it
		}
		lead = cmp.Or(lead, sep)
		need := len([]rune(lead + item))
		if len(out) == rows-1 && i < len(p.Groups)-1 {
			need += len(" +99") // the count of those left out, should this be the last
		}
		if ln.Width()+need > pen.Width && ln.Width() > 1 {
			if len(out) == rows-1 {
				ln.Add(" +"+strconv.Itoa(len(p.Groups)-i), pen.Theme.Dim)
				break
			}
			out = append(out, ln.String())
			ln, lead = pen.NewLine(pen.Width), " "
		}
		ln.Add(lead, pen.Theme.Dim).AddText(item, pen.Theme.WarnIf(g.Idle))
		lead = ""
	}
	return append(out, ln.String())
}
