// Package timeline is gputop's shared vocabulary: what probes write,
// recordings keep and the UI reads. It imports only the standard library.
//
//	probes ──Sample──▶ Store.Add ──Derive──▶ raw tier ──▶ 10 s ▶ 1 min ▶ 10 min buckets
//	recordings ──┘                                   └─ Series(key, from, to, columns) ─▶ ui
//
// A Sample is one raw reading of every probe at one instant, with its own
// time. Counters (energy, bytes, CPU seconds) stay counters in a Sample;
// Derive turns them into rates, so recordings hold exact numbers and live and
// replay derive them the same way. Nothing here reads the wall clock: "now"
// is whatever time the caller asks about.
//
// Its rooms: timeline itself holds the vocabulary (Sample, Metric and the
// metric catalog, SourceInfo, Source, Hint, Phase) and the Store, whose
// history timeline/tiers keeps at its resolutions; what the
// timeline means is in timeline/analysis (phases and hints, pure functions
// of a Store); what a person reads of it is in timeline/report (the report
// and the snapshot, and their writers); timeline/timelinetest helps tests.
package timeline
