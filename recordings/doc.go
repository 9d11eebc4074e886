// Package recordings keeps a session in a file that replays anywhere, on
// the same screens as live: the Writer writes samples as they come, the
// Reader reads them back from any time on, NewReplay makes a file a
// timeline.Source, and the Recorder is how every command records a live
// source, off its sampling path.
//
//	source ──▶ Recorder.Next ──▶ UI, record, run     run.gtr ──▶ Reader ──▶ NewReplay ──▶ UI
//	                └─▶ queue ──▶ Writer ──▶ run.gtr
//
// The format is documented in docs/recording-format.md. In short, the file
// is a sequence of zstd frames (zstd -dc prints its records):
//
//	header     skippable frame: "gputop-recording", version, JSON header
//	segment    skippable frame: first sample time  ┐ one per 5 minutes
//	           zstd frame: records, a block per s  ┘ of samples
//	...
//	index      skippable frame: every segment's offset and first time
//	trailer    skippable frame: where the index is
//
// Since format 1.1 a recording also keeps the hints gputop showed, as
// snapshots of the whole set (hints.go): Writer.WriteHints writes them
// (the Recorder, as its HintJudge says they change), Reader.Hints and
// HintsAt read them back.
// Since 1.2 it keeps the source's description as it grows past the
// header's (info.go): Writer.WriteInfo writes it, Reader.Info and the
// replay's Info read it back. Since 1.3 a hint keeps its standing and
// episodes.
//
// Each second's records end with a CRC and a zstd block flush, so a file
// cut anywhere (kill -9, a full disk) replays up to its last second, and
// damage never shows as wrong numbers: it costs the rest of its five-minute
// segment, and reading goes on at the next one (found by scanning for
// segment headers in a file without index). Each segment opens with a copy
// of the header, read when the header is damaged (headercopy.go).
// Reader.Gaps and the DamagedError at the end say what was lost. What a
// reader takes is
// bounded by what a writer writes (format.go, and
// timeline.SourceInfo.CheckLimits), checked before anything is sized by
// it, so hostile input ends in one error, in bounded memory and time.
// Values are stored exactly, bit for bit, and compactly: each as the
// difference from a prediction, in an adaptive Rice code (values.go).
//
// A stream (stream.go) is a recording read as it is written, from a pipe
// or socket: NewStreamReader returns each sample, hint snapshot and
// description as its chunk arrives; Recorder.StartWriter writes one.
//
// Files: format.go (constants and bounds), header.go, values.go and
// bits.go (how numbers are stored), encode.go, decode.go and
// decode_lists.go (records), frames.go and index.go (the file's frames),
// headercopy.go, hints.go, info.go, writer.go, reader.go and
// reader_load.go, open.go (bad input), replay.go, recorder.go, stream.go
// (with stream_frame.go and stream_errors.go), share.go (a recording
// followed while it is written) and share_client.go (its client, for
// gputop attach and gputop stream).
//
// Beside it: recordings/importer turns other tools' logs into recordings,
// recordings/export turns recordings into CSV and JSONL, and
// recordings/recordingstest makes samples for tests.
package recordings
