package render

import (
	"fmt"
	"strings"

	"github.com/gputop-dev/gputop/timeline/report"
)

// The health section of every form: what each GPU's health says, in words.

// findings are what a person should see of a GPU's health in the report's
// text: a link below its maximum, errors that are not zero, the last Xid,
// and the time its clocks were held back.
func findings(h *report.GPUHealth) []string {
	var out []string
	if !h.PCIeWidth.Unknown() && (h.PCIeWidth < h.PCIeWidthMax || h.PCIeGen < h.PCIeGenMax) {
		out = append(out, fmt.Sprintf("PCIe Gen%s x%s of Gen%s x%s", repCount(h.PCIeGen), repCount(h.PCIeWidth),
			repCount(h.PCIeGenMax), repCount(h.PCIeWidthMax)))
	}
	for _, c := range []struct {
		n     report.Number
		label string
	}{
		{h.LastXid, "last Xid"}, {h.ECCUncorrected, "ECC uncorrected"}, {h.ECCCorrected, "ECC corrected"},
		{h.RemappedRows, "remapped rows"}, {h.RetiredPages, "retired pages"},
		{h.PCIeReplays, "PCIe replays"}, {h.NVLinkErrors, "NVLink errors"},
	} {
		if !c.n.Unknown() && c.n > 0 {
			out = append(out, c.label+" "+repCount(c.n))
		}
	}
	out = append(out, linkFindings(h.NVLinks)...)
	var held []string
	for _, c := range h.ClocksHeld {
		if c.Share >= 0.005 {
			held = append(held, fmt.Sprintf("%s %s (%s)", c.Reason, repShare(c.Share), repDur(c.Seconds.Duration())))
		}
	}
	if len(held) > 0 {
		out = append(out, "clocks held: "+strings.Join(held, ", "))
	}
	return out
}

func repCount(n report.Number) string { return fmt.Sprintf("%.0f", float64(n)) }

// gpuFindings is one GPU's health findings, for the report's health lines.
type gpuFindings struct {
	gpu      int
	findings []string
}

// healthFindings lists the GPUs whose health has something to say.
func (r *doc) healthFindings() []gpuFindings {
	var out []gpuFindings
	for _, g := range r.GPUs {
		if g.Health == nil {
			continue
		}
		if f := findings(g.Health); len(f) > 0 {
			out = append(out, gpuFindings{g.Index, f})
		}
	}
	return out
}

// textHealth lists the GPUs whose health has something to say.
func (r *doc) textHealth(t repText) {
	all := r.healthFindings()
	if len(all) == 0 {
		return
	}
	t.line("")
	t.line("HEALTH  links, errors and clocks held back (NVML's violation counters)")
	for _, g := range all {
		t.wrapped(r.healthLabel(g.gpu), strings.Join(g.findings, "; "))
	}
}

// healthLabel starts a GPU's health line: "  3  " in a session of one
// host, "node3 GPU2  " in a session of several.
func (r *doc) healthLabel(idx int) string {
	if names := r.gpuNames(); names.ByHost() {
		return names.One(idx) + "  "
	}
	return fmt.Sprintf("%3d  ", idx)
}

// health is the markdown and HTML reports' health table, of the GPUs
// textHealth lists.
func (r *doc) health(f form) {
	all := r.healthFindings()
	if len(all) == 0 {
		return
	}
	f.section("Health")
	f.legend("Links, errors and clocks held back (NVML's violation counters).")
	t := Table{Head: []string{"GPU", "finding"}}
	for _, g := range all {
		t.add(r.gpuNames().One(g.gpu), strings.Join(g.findings, "; "))
	}
	f.table(t)
	f.end()
}

// linkFindings say which links are down and which counted errors.
func linkFindings(links []report.LinkHealth) []string {
	var out []string
	for _, l := range links {
		if l.Down || l.DownSeconds > 0 {
			s := fmt.Sprintf("NVLink %d down", l.Link)
			if l.DownSeconds > 0 {
				s += " " + repDur(l.DownSeconds.Duration())
			}
			out = append(out, s)
		}
		var errs []string
		for _, c := range []struct {
			n     report.Number
			label string
		}{{l.CRCErrors, "CRC errors"}, {l.Replays, "replays"}, {l.Recoveries, "recoveries"}} {
			if !c.n.Unknown() && c.n > 0 {
				errs = append(errs, c.label+" "+repCount(c.n))
			}
		}
		if len(errs) > 0 {
			out = append(out, fmt.Sprintf("NVLink %d: %s", l.Link, strings.Join(errs, ", ")))
		}
	}
	return out
}
