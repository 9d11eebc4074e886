// Package format is the bytes of a gputop recording (docs/recording-format.md):
// what each frame and record holds, and how it is written and read back.
// It has no files and no goroutines: recordings builds its Writer, Reader,
// stream and Recorder on it, and is the only package that imports it (the
// rules of arch_test.go leave no other a way to).
//
// The file is a sequence of zstd frames (zstd -dc prints its records):
//
//	header     skippable frame: "gputop-recording", version, JSON header
//	segment    skippable frame: first sample time  ┐ one per 5 minutes
//	           zstd frame: records, a block per s  ┘ of samples
//	...
//	index      skippable frame: every segment's offset and first time
//	trailer    skippable frame: where the index is
//
// Inside a segment, an Encoder writes a sample as records (key and probe
// definitions, statuses, processes, markers, then the sample with its
// values), and a Decoder reads them back; each second's records end with
// a check (RecCheck), a chunk a reader takes whole or not at all. Values
// are stored exactly, bit for bit, and compactly: each as the difference
// from a prediction, in an adaptive Rice code (values.go, bits.go). Since
// 1.1 a segment keeps the hints gputop showed (hints.go), since 1.2 the
// source's description as it grows (info.go), since 1.3 a hint's standing
// and episodes, since 1.4 a copy of the header first in each segment.
//
// What a reader takes is bounded by what a writer writes (format.go's
// Max... constants, and timeline.SourceInfo.CheckLimits), checked before
// anything is sized by it, so hostile input ends in one error, in bounded
// memory and time.
//
// Its names are exported for recordings, which is one package with it
// split along the line between the bytes and the files: a newer record
// type or frame goes here, and the Writer and Reader that carry it there.
//
// Files: format.go (Version, the constants and bounds), header.go (the
// header and its JSON), wire.go (records, strings, the cursor that reads them),
// values.go and bits.go (how numbers are stored), encode.go, decode.go and
// decode_lists.go (a segment's records), procdetail.go (a process's start
// and workload), hints.go and info.go (hint snapshots, the description),
// frames.go and index.go (the file's frames).
package format
