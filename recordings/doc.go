// Package recordings keeps a session in a file that replays anywhere, on
// the same screens as live: the Writer writes samples as they come, the
// Reader reads them back from any time on, NewReplay makes a file a
// timeline.Source, and the Recorder is how every command records a live
// source, off its sampling path.
//
//	source ──▶ Recorder.Next ──▶ UI, record, run     run.gtr ──▶ Reader ──▶ NewReplay ──▶ UI
//	                └─▶ queue ──▶ Writer ──▶ run.gtr
//
// The bytes are recordings/format's (docs/recording-format.md): frames,
// records, values, bounds. This package puts them in files and streams. In
// short, a file is a header, five-minute segments of zstd-compressed
// records, an index and a trailer. Each second's records end with a CRC
// and a zstd block flush, so a file cut anywhere (kill -9, a full disk)
// replays up to its last second, and damage never shows as wrong numbers:
// it costs the rest of its five-minute segment, and reading goes on at the
// next one (found by scanning for segment headers in a file without
// index). Each segment opens with a copy of the header, read when the
// header is damaged (headercopy.go). Reader.Gaps and the DamagedError at
// the end say what was lost.
//
// A recording also keeps the hints gputop showed, as snapshots of the
// whole set: Writer.WriteHints writes them (the Recorder, as its HintJudge
// says they change), Reader.Hints and HintsAt (hints.go) read them back;
// and the source's description as it grows past the header's:
// Writer.WriteInfo writes it, Reader.Info and the replay's Info read it
// back.
//
// A stream (stream.go) is a recording read as it is written, from a pipe
// or socket: NewStreamReader returns each sample, hint snapshot and
// description as its chunk arrives; Recorder.StartWriter writes one.
//
// Files: format_names.go (the format's names this package's API hands
// out), writer.go and writer_policy.go, reader.go and reader_load.go,
// headercopy.go, hints.go, open.go (bad input), errors.go, replay.go,
// recorder.go, stream.go (with stream_frame.go and stream_errors.go),
// share.go (a recording followed while it is written) and share_client.go
// (its client, for gputop attach and gputop stream).
//
// Beside it: recordings/format is the bytes, recordings/importer turns
// other tools' logs into recordings, recordings/export turns recordings
// into CSV and JSONL, and recordings/recordingstest makes samples for
// tests.
package recordings
