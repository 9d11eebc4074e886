// Package export writes a recording as tidy data for pandas, jq or a
// spreadsheet: CSV or JSONL, one row per device per sample and one per
// marker, with the display values the screen shows (rates derived from
// counters). The columns are a contract, documented in docs/export.md.
//
//	recordings.Reader ──▶ Write ──▶ CSV or JSONL
//
// It imports timeline and recordings; gputop export is its one caller.
package export
