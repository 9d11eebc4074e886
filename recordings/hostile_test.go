package recordings

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/gputop-dev/gputop/recordings/format"
	"github.com/gputop-dev/gputop/recordings/recordingstest"
	"github.com/gputop-dev/gputop/timeline"
)

// hostileOut writes the hostile inputs to a directory, for measuring the
// built binary on them (docs/performance.md, "Hostile inputs"):
//
//	go test ./recordings/ -run TestWriteHostileFiles -hostile.out /tmp/hostile
var hostileOut = flag.String("hostile.out", "", "write the hostile inputs to this directory")

// hostileInput is one input of a class that a reader must survive: a few
// KB that decompress to tens of MB, a trailer that lies, a header that
// describes what no machine is, a damaged one. Every one is made by code,
// the same bytes every time.
type hostileInput struct {
	name string
	// data is the file's first bytes; size, where larger, makes the file
	// sparse: zeros from len(data) to size-len(tail), then tail.
	data []byte
	size int64
	tail []byte
	// file and stream are how many samples the file reader and the stream
	// reader must return, exactly; -1 when they refuse the input at once.
	file, stream int
}

// fileSize is the input's length.
func (h hostileInput) fileSize() int64 { return max(h.size, int64(len(h.data)+len(h.tail))) }

// ReadAt reads the input as a file, without holding its zeros.
func (h hostileInput) ReadAt(p []byte, off int64) (int, error) {
	size := h.fileSize()
	if off >= size {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && off+int64(n) < size {
		at := off + int64(n)
		switch tailAt := size - int64(len(h.tail)); {
		case at < int64(len(h.data)):
			n += copy(p[n:], h.data[at:])
		case at >= tailAt:
			n += copy(p[n:], h.tail[at-tailAt:])
		default:
			m := int(min(int64(len(p)-n), tailAt-at))
			clear(p[n : n+m])
			n += m
		}
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// reader reads the input front to back, as a stream.
func (h hostileInput) reader() io.Reader { return io.NewSectionReader(h, 0, h.fileSize()) }

// hostileStart is the time of the hostile inputs' samples.
var hostileStart = time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)

// hostileHeaderFrame is a header frame holding the JSON given, whatever it
// says.
func hostileHeaderFrame(js []byte) []byte {
	c := append([]byte(format.FileMagic), 0, 0, 0, 0)
	binary.LittleEndian.PutUint16(c[len(format.FileMagic):], format.FormatVersion.Major)
	binary.LittleEndian.PutUint16(c[len(format.FileMagic)+2:], format.FormatVersion.Minor)
	c = append(c, js...)
	c = binary.LittleEndian.AppendUint32(c, crc32.Checksum(c, format.Castagnoli))
	return format.AppendSkippable(nil, format.FrameHeader, c)
}

// hostileSegment is a segment header and a zstd frame of the records
// given, compressed as well as zstd can.
func hostileSegment(t testing.TB, first time.Time, seq uint32, records []byte) []byte {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(records, format.AppendSegmentHeader(nil, first.UnixNano(), seq))
}

// withCheck ends a chunk: the records, then their check.
func withCheck(records []byte) []byte {
	return format.AppendRecord(records, format.RecCheck, binary.LittleEndian.AppendUint32(nil, crc32.Checksum(records, format.Castagnoli)))
}

// goodHeaderJSON is the header JSON of the hostile inputs that keep their
// header: an 8-GPU node at 1 s.
func goodHeaderJSON(t testing.TB, edit func(*hostileHeader)) []byte {
	hj := hostileHeader{HeaderJSON: format.HeaderJSON{GputopVersion: "v0.0.0-hostile", Start: hostileStart,
		Source: format.SourceToJSON(recordingstest.Info(8, time.Second))}}
	if edit != nil {
		edit(&hj)
	}
	js, err := json.Marshal(hj.HeaderJSON)
	if err != nil {
		t.Fatal(err)
	}
	if hj.rawGPUs > 0 { // GPUs with every field left out, to fit many in a header
		js = bytes.Replace(js, []byte(`"gpus":null`), []byte(`"gpus":[`+strings.Repeat(`{},`, hj.rawGPUs-1)+`{}]`), 1)
	}
	return js
}

// hostileHeader is a header's JSON and, where rawGPUs is set, that many
// GPUs of no field at all.
type hostileHeader struct {
	format.HeaderJSON
	rawGPUs int
}

// withHeaderJSON is a closed recording with its header's JSON replaced
// (whatever it says) and its index moved to match.
func withHeaderJSON(t testing.TB, data, js []byte) []byte {
	r, err := openMem(data)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.indexed {
		t.Fatal("withHeaderJSON needs a closed recording")
	}
	out := hostileHeaderFrame(js)
	shift := int64(len(out)) - r.dataStart
	out = append(out, data[r.dataStart:r.dataEnd]...)
	idx := r.index
	idx.Segments = append([]format.SegmentRef(nil), idx.Segments...)
	for i := range idx.Segments {
		idx.Segments[i].Offset += shift
	}
	return format.AppendIndex(out, idx, int64(len(out)))
}

// keyDefRecord defines the key x/y as a gauge.
var keyDefRecord = format.AppendRecord(nil, format.RecKeyDef, []byte{0, 1, 'x', 1, 'y'})

// sampleRecord is a sample of n keys (the layout of ids 0..n-1, or the
// previous one's with reuse), each value predicted and unchanged: a bit.
// first says it is the segment's first sample: the time absolute and
// every value an exception (den 1, n 0). step is its change of step.
func sampleRecord(n int, reuse, first bool, at int64) []byte {
	p := binary.AppendVarint(nil, at)
	if reuse {
		p = append(p, 0)
	} else {
		p = binary.AppendUvarint(p, uint64(n)+1)
		p = append(p, make([]byte, n)...) // every id one past the last
	}
	if first {
		p = binary.AppendUvarint(p, uint64(n))
		for range n {
			p = append(p, 0, format.OpAbsolute, 1, 0, 0)
		}
	} else {
		p = append(p, 0)
		p = append(p, make([]byte, (n+7)/8)...)
	}
	return format.AppendRecord(nil, format.RecSample, p)
}

// hostileInputs are the inputs of every class, as the binary is measured
// on them (TestWriteHostileFiles); hostileSeeds are smaller ones.
func hostileInputs(t testing.TB) []hostileInput {
	head := hostileHeaderFrame(goodHeaderJSON(t, nil))
	var out []hostileInput
	add := func(name string, file, stream int, parts ...[]byte) {
		out = append(out, hostileInput{name: name, data: bytes.Join(parts, nil), file: file, stream: stream})
	}

	// A chunk without a check: 48 MiB of empty records of a type from the
	// future, which a reader skips, and no check after them.
	add("bomb-no-check", 0, 0, head, hostileSegment(t, hostileStart, 0, bytes.Repeat([]byte{0x42, 0}, 24<<20)))
	// The same key defined a million times, then a layout of all million
	// reused by sample after sample: a bit each, 40 bytes each decoded.
	add("bomb-key-layout", 0, 0, head, hostileSegment(t, hostileStart, 0, keyLayoutBomb(1<<20, 250)))
	// Key definitions without end: eight million, checked.
	add("bomb-key-defs", 0, 0, head, hostileSegment(t, hostileStart, 0, withCheck(bytes.Repeat(keyDefRecord, 8<<20))))
	// Many tiny chunks: a sample of one key a second, each in a chunk of
	// its own, two million of them; and four segments of as many as one
	// may hold.
	tiny := tinyChunksBomb(hostileStart, 2<<20)
	add("bomb-tiny-chunks", format.MaxSegmentSamples, format.MaxSegmentSamples, head, hostileSegment(t, hostileStart, 0, tiny))
	add("bomb-tiny-segments", 4*format.MaxSegmentSamples, 4*format.MaxSegmentSamples, tinySegmentsBomb(t))

	// A trailer that points far back: a sparse gigabyte, the index said to
	// start right after the header.
	out = append(out, lyingTrailer(t, 1<<30))
	// An index that says the last sample is in 2262: the span of a
	// recording is what its index says, so nothing may be sized by it.
	out = append(out, hostileInput{name: "lying-span", data: lyingSpan(t, synthRecording(t, true)),
		file: hostileSamples, stream: hostileSamples})

	// Headers that describe what no machine is, before ten minutes of an
	// 8-GPU node (whose segments carry no copy of the header to fall back
	// on): an interval of a nanosecond and of a century, read as unknown;
	// 20,000 hosts, 250,000 GPUs, refused.
	synth, copies := synthRecording(t, false), synthRecording(t, true)
	for _, c := range headerClasses(20000, 250000) {
		out = append(out, hostileInput{name: c.name, file: c.samples(hostileSamples), stream: c.samples(hostileSamples),
			data: withHeaderJSON(t, synth, goodHeaderJSON(t, c.edit))})
	}
	// One byte of the header's JSON changed: the file reads from the copy
	// of the header in its first segment; a stream is refused.
	add("header-damaged", hostileSamples, -1, damageHeader(copies))
	return out
}

// hostileSeeds are small inputs of every class, for the fuzz targets'
// corpora: the bombs as they are (a few KB each), and the rest made small.
func hostileSeeds(t testing.TB) map[string][]byte {
	seeds := make(map[string][]byte)
	for _, h := range hostileInputs(t) {
		if len(h.data) <= 8<<10 && h.size == 0 {
			seeds["hostile-"+h.name] = h.data
		}
	}
	lying := lyingTrailer(t, 0) // and a KB of zeros
	seeds["hostile-lying-trailer"] = slices.Concat(lying.data, make([]byte, 1<<10), lying.tail)
	small := writeMem(t, samples(3, 1), time.Minute).data
	for _, c := range headerClasses(timeline.MaxHosts+1, timeline.MaxGPUs+1) {
		js := goodHeaderJSON(t, c.edit)
		seeds["hostile-"+c.name] = withHeaderJSON(t, small, js)
	}
	seeds["hostile-header-damaged"] = damageHeader(small)
	return seeds
}

// headerClass is a header JSON that describes what no machine is.
type headerClass struct {
	name string
	edit func(*hostileHeader)
	read bool // read, the interval taken as unknown; else refused
}

func (c headerClass) samples(n int) int {
	if c.read {
		return n
	}
	return -1
}

// headerClasses are headers of absurd intervals, hosts and GPUs (that many
// of each).
func headerClasses(hosts, gpus int) []headerClass {
	return []headerClass{
		{"interval-1ns", func(h *hostileHeader) { h.Source.Interval = "1ns" }, true},
		{"interval-100y", func(h *hostileHeader) { h.Source.Interval = (100 * 365 * 24 * time.Hour).String() }, true},
		{fmt.Sprintf("hosts-%d", hosts), func(h *hostileHeader) {
			h.Source.Hosts = make([]format.HostJSON, hosts)
			for i := range h.Source.Hosts {
				h.Source.Hosts[i].Name = fmt.Sprintf("n%d", i)
			}
		}, false},
		{fmt.Sprintf("gpus-%d", gpus), func(h *hostileHeader) { h.Source.GPUs = nil; h.rawGPUs = gpus }, false},
	}
}

// keyLayoutBomb is the same key defined n times, a first sample of all n,
// and samples more samples reusing its layout, in one chunk.
func keyLayoutBomb(n, samples int) []byte {
	b := bytes.Repeat(keyDefRecord, n)
	b = append(b, sampleRecord(n, false, true, hostileStart.UnixNano())...)
	b = append(b, sampleRecord(n, true, false, int64(time.Second))...)
	b = append(b, bytes.Repeat(sampleRecord(n, true, false, 0), samples)...)
	return withCheck(b)
}

// tinyChunksBomb is n samples of one key a second from first, each in a
// chunk of its own.
func tinyChunksBomb(first time.Time, n int) []byte {
	b := withCheck(append(append([]byte(nil), keyDefRecord...), sampleRecord(1, false, true, first.UnixNano())...))
	b = append(b, withCheck(sampleRecord(1, true, false, int64(time.Second)))...)
	return append(b, bytes.Repeat(withCheck(sampleRecord(1, true, false, 0)), n-2)...)
}

// tinySegmentsBomb is a file of four segments of as many samples as one
// may hold, a second apart, each in a chunk of its own: 4 KB.
func tinySegmentsBomb(t testing.TB) []byte {
	b := hostileHeaderFrame(goodHeaderJSON(t, nil))
	for i := range 4 {
		first := hostileStart.Add(time.Duration(i*format.MaxSegmentSamples) * time.Second)
		b = append(b, hostileSegment(t, first, uint32(i), tinyChunksBomb(first, format.MaxSegmentSamples))...)
	}
	return b
}

// lyingTrailer is a recording of three samples, then zeros up to size,
// then a trailer that says the index starts right after the header.
func lyingTrailer(t testing.TB, size int64) hostileInput {
	good := writeMem(t, samples(3, 1), time.Minute)
	r, err := openMem(good.data)
	if err != nil {
		t.Fatal(err)
	}
	dataEnd := r.dataEnd
	r.Close()
	trailer := format.AppendSkippable(nil, format.FrameTrailer, append(binary.LittleEndian.AppendUint64(nil, uint64(good.segments[0])), format.TrailerMagic...))
	return hostileInput{name: "lying-trailer", data: good.data[:dataEnd], size: size, tail: trailer, file: 3, stream: 3}
}

// lyingSpan is a closed recording whose index says its last sample is at
// the end of time.
func lyingSpan(t testing.TB, data []byte) []byte {
	r, err := openMem(data)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	idx := r.index
	idx.Last = math.MaxInt64
	return format.AppendIndex(append([]byte(nil), data[:r.dataEnd]...), idx, r.dataEnd)
}

// damageHeader is a recording with one byte of its header's JSON changed.
func damageHeader(data []byte) []byte {
	out := append([]byte(nil), data...)
	out[format.SkippableHeader+len(format.FileMagic)+4+40] ^= 0x20
	return out
}

// hostileSamples is how many samples synthRecording holds.
const hostileSamples = 600

// synthRecording is ten minutes of a synthetic 8-GPU node at 1 Hz, closed,
// with a copy of its header in each segment or, as before them, without.
func synthRecording(t testing.TB, copies bool) []byte {
	g := recordingstest.NewSynth(7, hostileStart, time.Second, 8, 32)
	var f memFile
	w, err := newWriter(&f, "synth.gtr", Header{Version: "v0.0.0-hostile", Info: recordingstest.Info(8, time.Second), Start: hostileStart})
	if err != nil {
		t.Fatal(err)
	}
	if !copies {
		w.headerCopy = nil
	}
	for range hostileSamples {
		s := g.Next()
		if err := w.Write(&s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return f.Bytes()
}

// TestWriteHostileFiles writes the hostile inputs to -hostile.out, for
// the binary's measurements.
func TestWriteHostileFiles(t *testing.T) {
	if *hostileOut == "" {
		t.Skip("give -hostile.out DIR to write the hostile inputs there")
	}
	inputs := hostileInputs(t)
	if err := os.MkdirAll(*hostileOut, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, h := range inputs {
		path := filepath.Join(*hostileOut, h.name+".gtr")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.Write(h.data)
		if err == nil && len(h.tail) > 0 {
			_, err = f.WriteAt(h.tail, h.fileSize()-int64(len(h.tail)))
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes", path, h.fileSize())
	}
}
