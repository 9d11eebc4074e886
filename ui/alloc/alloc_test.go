package alloc

import (
	"strings"
	"testing"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
	"github.com/gputop-dev/gputop/ui/draw"
)

// The allocated demo's owners: a pod GPUs 0-3, a Slurm job 4-5, a notebook
// pod GPU6 and another job GPU7, listed out of order as a source may.
var demo = func() []timeline.Owner {
	var out []timeline.Owner
	for _, g := range []int{7, 0, 1, 2, 3, 4, 5, 6} {
		o := timeline.Owner{GPU: g}
		switch {
		case g < 4:
			o.Pod, o.Namespace, o.Container = "llm-train-0", "team-a", "trainer"
		case g < 6:
			o.Job, o.User, o.Partition = "4242", "alice", "gpu"
		case g == 6:
			o.Pod, o.Namespace, o.Container = "notebook-bob", "team-b", "jupyter"
		default:
			o.Job, o.User, o.Partition = "4250", "carol", "gpu"
		}
		out = append(out, o)
	}
	return out
}()

func pen(w int, ascii bool) draw.Pen {
	g := &draw.UnicodeGlyphs
	if ascii {
		g = &draw.ASCIIGlyphs
	}
	fit := draw.NewFitter(g, ascii)
	return draw.Pen{Theme: &draw.Theme{Plain: true}, Glyph: g, Fit: &fit, ASCII: ascii, Width: w}
}

func busy(g int) bool { return g < 6 }

func TestOfGroupsByOwner(t *testing.T) {
	p := Of(demo, busy, units.GPUs)
	var got []string
	for _, g := range p.Groups {
		got = append(got, units.GPUs(g.GPUs)+" "+Short(g.Owner))
		if g.Idle != (g.GPUs[0] >= 6) {
			t.Errorf("%s idle %v", units.GPUs(g.GPUs), g.Idle)
		}
	}
	want := "GPU0-3 pod llm-train-0|GPU4-5 job 4242|GPU6 pod notebook-bob|GPU7 job 4250"
	if strings.Join(got, "|") != want {
		t.Errorf("groups %q, want %q", strings.Join(got, "|"), want)
	}
	if p.Rows() != 5 {
		t.Errorf("rows %d, want 5", p.Rows())
	}
	// A GPU shared by two pods (time slicing) is in both owners' groups.
	shared := Of([]timeline.Owner{{GPU: 0, Pod: "a"}, {GPU: 0, Pod: "b"}, {GPU: 1, Pod: "a"}}, nil, units.GPUs)
	if len(shared.Groups) != 2 || units.GPUs(shared.Groups[0].GPUs) != "GPU0-1" || units.GPUs(shared.Groups[1].GPUs) != "GPU0" {
		t.Errorf("a shared GPU: %+v", shared.Groups)
	}
	if none := Of(nil, busy, units.GPUs); none.Known || none.Rows() != 0 {
		t.Errorf("no reading makes a panel: %+v", none)
	}
	if empty := Of([]timeline.Owner{}, busy, units.GPUs); !empty.Known || empty.Rows() != 2 {
		t.Errorf("a reading of nothing: %+v, %d rows", empty, empty.Rows())
	}
}

func TestLong(t *testing.T) {
	for _, c := range []struct {
		o    timeline.Owner
		want string
	}{
		{demo[1], "pod team-a/llm-train-0 (trainer)"},
		{demo[5], "Slurm job 4242 (alice, gpu)"},
		{timeline.Owner{Job: "7"}, "Slurm job 7"},
		{timeline.Owner{Pod: "p\x1b[31m"}, "pod p"},
		{timeline.Owner{}, ""},
	} {
		if got := Long(c.o); got != c.want {
			t.Errorf("Long(%+v) = %q, want %q", c.o, got, c.want)
		}
	}
}

// Whole, the panel is a row an owner under its title, the GPUs aligned;
// in fewer rows, the owners are packed, and those that do not fit
// counted; every row within the width.
func TestView(t *testing.T) {
	p := Of(demo, busy, units.GPUs)
	whole := strings.Join(View(pen(80, false), &p, 5), "\n")
	want := ` ALLOCATIONS
 GPU0-3  pod team-a/llm-train-0 (trainer)
 GPU4-5  Slurm job 4242 (alice, gpu)
 GPU6    pod team-b/notebook-bob (jupyter)  no process
 GPU7    Slurm job 4250 (carol, gpu)  no process`
	if whole != want {
		t.Errorf("whole:\n%s\nwant:\n%s", whole, want)
	}
	for _, c := range []struct {
		w, rows int
		ascii   bool
		want    string
	}{
		{120, 1, false, " ALLOCATIONS  GPU0-3 pod llm-train-0 · GPU4-5 job 4242 · GPU6 pod notebook-bob (idle) · GPU7 job 4250 (idle)"},
		{80, 1, true, " ALLOCATIONS  GPU0-3 pod llm-train-0 | GPU4-5 job 4242 +2"},
		{60, 2, false, " ALLOCATIONS  GPU0-3 pod llm-train-0 · GPU4-5 job 4242\n GPU6 pod notebook-bob (idle) · GPU7 job 4250 (idle)"},
		{40, 2, false, " ALLOCATIONS  GPU0-3 pod llm-train-0\n GPU4-5 job 4242 +2"},
	} {
		got := View(pen(c.w, c.ascii), &p, c.rows)
		for _, r := range got {
			if n := len([]rune(r)); n > c.w {
				t.Errorf("%dx%d: row %d wide: %q", c.w, c.rows, n, r)
			}
		}
		if s := strings.Join(got, "\n"); s != c.want {
			t.Errorf("%d columns, %d rows:\n%s\nwant:\n%s", c.w, c.rows, s, c.want)
		}
	}
	empty := Of([]timeline.Owner{}, busy, units.GPUs)
	if got := View(pen(80, false), &empty, 2); got[0] != " ALLOCATIONS  no GPU is allocated" || got[1] != "" {
		t.Errorf("nothing allocated: %q", got)
	}
}
