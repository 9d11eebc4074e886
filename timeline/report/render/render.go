package render

import (
	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/units"
)

// doc is a report as its writers see it: the Report, and the names of its
// GPUs that every form asks for, made once for the writing.
type doc struct {
	*report.Report
	names *units.GPUNames // gpuNames, made when first asked
}
