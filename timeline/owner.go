package timeline

import "strings"

// Holder names who an Owner is, as the hints and the report group GPUs by
// it: "pod team-a/train-0" (a pod's containers are one holder), "Slurm job
// 4242"; "" for an Owner that names neither.
func (o Owner) Holder() string {
	switch {
	case o.Pod != "" && o.Namespace != "":
		return CleanText("pod " + o.Namespace + "/" + o.Pod)
	case o.Pod != "":
		return CleanText("pod " + o.Pod)
	case o.Job != "":
		return CleanText("Slurm job " + o.Job)
	}
	return ""
}

// HolderDetail is the rest of what is known of the holder, in brackets:
// " (trainer)" for a pod's container, " (alice, gpu)" for a job's user and
// partition; "" where nothing is.
func (o Owner) HolderDetail() string {
	var more []string
	if o.Pod != "" {
		more = []string{o.Container}
	} else {
		more = []string{o.User, o.Partition}
	}
	more = deleteEmpty(more)
	if len(more) == 0 {
		return ""
	}
	return CleanText(" (" + strings.Join(more, ", ") + ")")
}

func deleteEmpty(ss []string) []string {
	out := ss[:0]
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
