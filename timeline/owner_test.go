package timeline

import "testing"

func TestOwnerHolder(t *testing.T) {
	for _, c := range []struct {
		o              Owner
		holder, detail string
	}{
		{Owner{Pod: "train-0", Namespace: "team-a", Container: "trainer"}, "pod team-a/train-0", " (trainer)"},
		{Owner{Pod: "train-0"}, "pod train-0", ""},
		{Owner{Job: "4242", User: "alice", Partition: "gpu"}, "Slurm job 4242", " (alice, gpu)"},
		{Owner{Job: "4242", Partition: "gpu"}, "Slurm job 4242", " (gpu)"},
		{Owner{User: "alice"}, "", " (alice)"},
		// A name from outside cannot reach a terminal with its escapes.
		{Owner{Pod: "x\x1b[2Jy", Namespace: "n"}, "pod n/x" + CleanText("\x1b[2J") + "y", ""},
	} {
		if h, d := c.o.Holder(), c.o.HolderDetail(); h != c.holder || d != c.detail {
			t.Errorf("%+v: %q %q, want %q %q", c.o, h, d, c.holder, c.detail)
		}
	}
}
