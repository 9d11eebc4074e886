package probes

import (
	"context"
	"slices"

	"github.com/gputop-dev/gputop/timeline"
)

// JobSource is a session's samples with the job's GPU processes marked
// (Process.InJob) where NVML reports them, and the job's command in Info:
// the job is the tree of processes `gputop run` started, which tree follows.
type JobSource struct {
	src     timeline.Source
	tree    *TreeProbe
	command []string
}

// NewJobSource wraps src, a session that runs tree among its probes.
func NewJobSource(src timeline.Source, tree *TreeProbe, command []string) *JobSource {
	return &JobSource{src: src, tree: tree, command: command}
}

// Next is the session's next sample, with the job's processes marked.
func (j *JobSource) Next(ctx context.Context) (timeline.Sample, error) {
	s, err := j.src.Next(ctx)
	if err != nil || s.Processes == nil {
		return s, err
	}
	pids := j.tree.PIDs()
	for i := range s.Processes {
		s.Processes[i].InJob = slices.Contains(pids, s.Processes[i].PID)
	}
	return s, nil
}

// Info is the session's, naming the job's command.
func (j *JobSource) Info() timeline.SourceInfo {
	info := j.src.Info()
	info.Command = j.command
	return info
}

// Mark passes a marker on to the session, if it takes markers: an
// attached viewer's m marks gputop run's recording as the run's own would.
func (j *JobSource) Mark(text string) {
	if m, ok := j.src.(timeline.MarkSink); ok {
		m.Mark(text)
	}
}
