// Package snapshot is `gputop snapshot`: one reading of every GPU and the
// host (two samples, so that counters become rates), as a table for a
// person or JSON for a script (a contract: docs/snapshot.md). Its numbers
// and health are the report's (report.Number, report.GPUHealth,
// report.HealthAt), so a GPU reads the same in both.
//
// It imports timeline, timeline/units and timeline/report; only gputop's
// snapshot command imports it.
package snapshot
