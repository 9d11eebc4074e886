package recordings

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings/format"
	"github.com/gputop-dev/gputop/recordings/recordingstest"
	"github.com/gputop-dev/gputop/timeline"
)

// ownedSamples are samples with owners as the ownership probe gives them:
// none read (nil) between process ticks, a fresh answer of none, pods and
// jobs, and names a hostile kubelet could send.
func ownedSamples() []timeline.Sample {
	ss := samples(12, 2)
	ss[0].Owners = []timeline.Owner{
		{GPU: 0, Pod: "llm-train-0", Namespace: "team-a", Container: "trainer"},
		{GPU: 1, Job: "4242", User: "alice", Partition: "gpu"},
		{GPU: 1, Pod: "shared", Namespace: "team-b"}, // a time-sliced GPU's second holder
	}
	ss[5].Owners = []timeline.Owner{} // read, and no GPU allocated
	ss[10].Owners = []timeline.Owner{
		{GPU: 0, Pod: "évaluation-✓", Namespace: "team-a", Container: ""},
		{GPU: 16383, Job: "1"},
	}
	return ss
}

func sameOwners(t *testing.T, i int, want, got []timeline.Owner) {
	t.Helper()
	if (want == nil) != (got == nil) || !reflect.DeepEqual(want, got) && len(want)+len(got) > 0 {
		t.Errorf("sample %d: owners %#v, want %#v", i, got, want)
	}
}

// TestOwnersRoundTrip: a sample's owners read back as written, nil as nil
// and an empty answer as empty, through a file and through a stream; and
// the samples without them are written as before.
func TestOwnersRoundTrip(t *testing.T) {
	want := ownedSamples()
	rec := writeMem(t, want, time.Minute)
	got, err := readMem(t, rec.data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("read %d samples, want %d", len(got), len(want))
	}
	for i := range want {
		sameSample(t, i, want[i], got[i]) // owners too
	}

	sr, err := NewStreamReader(bytes.NewReader(rec.data), "owners")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		ev, err := sr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev.Item == StreamSample {
			sameOwners(t, n, want[n].Owners, ev.Sample.Owners)
			n++
		}
	}
	if n != len(want) {
		t.Fatalf("the stream gave %d samples, want %d", n, len(want))
	}

	// Without owners, every byte as before: the owners are a record of
	// their own, only on the samples that have them.
	plain := ownedSamples()
	for i := range plain {
		plain[i].Owners = nil
	}
	withOwners, without := recordsOf(t, want), recordsOf(t, plain)
	if bytes.Equal(withOwners, without) {
		t.Fatal("the owners were not written")
	}
	if stripped := stripRecords(t, withOwners, 12); !bytes.Equal(stripped, without) {
		t.Error("a file with owners, less its owner records, differs from one written without them")
	}
}

// recordsOf is the records the encoder makes of ss, in one segment.
func recordsOf(t *testing.T, ss []timeline.Sample) []byte {
	t.Helper()
	var e format.Encoder
	e.Reset()
	var b []byte
	for i := range ss {
		b = e.AppendSample(b, &ss[i])
	}
	return b
}

// stripRecords removes the records of type typ from records: what a reader
// that skips the type reads.
func stripRecords(t *testing.T, records []byte, typ byte) []byte {
	t.Helper()
	var out []byte
	for len(records) > 0 {
		n, w := binary.Uvarint(records[1:])
		if w <= 0 || uint64(len(records)-1-w) < n {
			t.Fatal("records do not parse")
		}
		end := 1 + w + int(n)
		if records[0] != typ {
			out = append(out, records[:end]...)
		}
		records = records[end:]
	}
	return out
}

// TestOwnersWriterBounds: the writer cuts a name past MaxOwnerText at a
// rune's start, and leaves out an owner of a GPU no recording numbers and
// owners past what a record may list.
func TestOwnersWriterBounds(t *testing.T) {
	long := strings.Repeat("é", 200) // 400 bytes
	ss := samples(2, 1)
	ss[0].Owners = []timeline.Owner{{GPU: 0, Pod: long, User: "x"}}
	got, err := readMem(t, writeMem(t, ss, time.Minute).data)
	if err != nil {
		t.Fatal(err)
	}
	if p := got[0].Owners[0].Pod; len(p) != 252 || p != long[:252] || got[0].Owners[0].User != "x" {
		t.Errorf("a 400-byte name read back as %d bytes %q", len(p), p)
	}

	// Owners a reader would not take are left out, the sample kept: owners
	// are not worth a recording that stops.
	many := make([]timeline.Owner, format.MaxListLen+5)
	for i := range many {
		many[i] = timeline.Owner{GPU: i % 8, Job: "j"}
	}
	ss = samples(3, 1)
	ss[0].Owners = []timeline.Owner{{GPU: -1, Pod: "p"}, {GPU: 0, Pod: "kept"}, {GPU: timeline.MaxGPUs, Pod: "p"}}
	ss[1].Owners = many
	got, err = readMem(t, writeMem(t, ss, time.Minute).data)
	if err != nil || len(got) != 3 {
		t.Fatalf("%d samples read, %v", len(got), err)
	}
	if len(got[0].Owners) != 1 || got[0].Owners[0].Pod != "kept" || len(got[1].Owners) != format.MaxListLen {
		t.Errorf("owners read back: %v, and %d of %d", got[0].Owners, len(got[1].Owners), len(many))
	}
	if len(ss[0].Owners) != 3 || len(ss[1].Owners) != len(many) {
		t.Error("the writer changed the caller's sample")
	}
}

// ownerRecord builds an owners record by hand, followed by a sample
// record of no metrics, in a chunk with its check.
func ownerRecord(payload []byte) []byte {
	b := format.AppendRecord(nil, 12, payload)
	b = format.AppendRecord(b, format.RecSample, []byte{0, 0, 0})
	return format.AppendRecord(b, format.RecCheck, binary.LittleEndian.AppendUint32(nil, crc32.Checksum(b, format.Castagnoli)))
}

// TestOwnersHostileRecords: what a hostile file says of owners is bounded
// where it enters: a name past MaxOwnerText, a GPU past timeline.MaxGPUs,
// a count past MaxListLen or the bytes there are, flags of names no
// format has, are damage; names lose their control sequences.
func TestOwnersHostileRecords(t *testing.T) {
	str := func(s string) []byte { return append(binary.AppendUvarint(nil, uint64(len(s))), s...) }
	one := func(gpu uint64, flags byte, names ...string) []byte {
		p := binary.AppendUvarint(binary.AppendUvarint(nil, 1), gpu)
		p = append(p, flags)
		for _, n := range names {
			p = append(p, str(n)...)
		}
		return p
	}
	many := binary.AppendUvarint(nil, format.MaxListLen+1)
	for range format.MaxListLen + 1 {
		many = append(many, 0, 0)
	}
	for _, c := range []struct {
		name    string
		payload []byte
		want    error
	}{
		{"name too long", one(0, 1, strings.Repeat("x", format.MaxOwnerText+1)), format.ErrPastBounds},
		{"GPU too large", one(timeline.MaxGPUs, 0), format.ErrCorrupt},
		{"GPU past 64 bits", append(binary.AppendUvarint(nil, 1), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0), format.ErrCorrupt},
		{"unknown flags", one(0, 1<<6), format.ErrCorrupt},
		{"count past the bytes", append(binary.AppendUvarint(nil, 1<<40), 0, 0), format.ErrCorrupt},
		{"count past the bound", many, format.ErrPastBounds},
		{"name cut short", append(one(0, 1), 9, 'a'), format.ErrCorrupt},
	} {
		var d format.Decoder
		d.Reset(ownerRecord(c.payload))
		s, ok, err := d.Next()
		if ok || !errors.Is(err, c.want) || s.Owners != nil {
			t.Errorf("%s: ok %v, err %v, owners %d; want %v", c.name, ok, err, len(s.Owners), c.want)
		}
	}

	var d format.Decoder
	d.Reset(ownerRecord(one(3, 1|2|8|16, "pod\x1b]52;c;aGk=\x07", "ns\x1b[2J", "77", "eve\r")))
	s, ok, err := d.Next()
	if !ok || err != nil {
		t.Fatalf("a good record: %v", err)
	}
	want := []timeline.Owner{{GPU: 3, Pod: timeline.CleanText("pod\x1b]52;c;aGk=\x07"), Namespace: timeline.CleanText("ns\x1b[2J"),
		Job: "77", User: timeline.CleanText("eve\r")}}
	if !reflect.DeepEqual(s.Owners, want) || strings.ContainsAny(s.Owners[0].Pod+s.Owners[0].Namespace+s.Owners[0].User, "\x1b\x07\r") {
		t.Errorf("owners %#v, want %#v", s.Owners, want)
	}
}

// Owners cost a few KB an hour: an hour of an 8-GPU node at 1 Hz with
// each GPU's pod read every 5 s grows by under 8 KB (measured 3,890
// bytes, 0.4 %), since the list repeats and zstd takes it for little.
func TestOwnersCostFewKBPerHour(t *testing.T) {
	g := recordingstest.NewSynth(7, recordingstest.T0, time.Second, 8, 32)
	ss := make([]timeline.Sample, 3600)
	for i := range ss {
		ss[i] = g.Next()
	}
	without := len(writeMem(t, ss, 5*time.Minute).data)
	for i := 0; i < len(ss); i += 5 {
		for gpu := range 8 {
			ss[i].Owners = append(ss[i].Owners, timeline.Owner{GPU: gpu, Pod: fmt.Sprintf("llm-train-%d", gpu/4),
				Namespace: "team-a", Container: "trainer"})
		}
	}
	with := len(writeMem(t, ss, 5*time.Minute).data)
	t.Logf("an hour of 8 GPUs: %d bytes without owners, %d with (+%d)", without, with, with-without)
	if with-without > 8<<10 {
		t.Errorf("owners cost %d bytes an hour", with-without)
	}
}
