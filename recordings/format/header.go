package format

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// Header is what a recording says about itself, before any sample.
type Header struct {
	// FormatVersion is the version the file was written in. Create writes
	// the current FormatVersion whatever the caller puts here.
	FormatVersion Version
	// Version is the gputop version that wrote the file.
	Version string
	// Info describes the recorded source: host, GPUs, interval, and
	// whether it was live, a demo (and its scenario), or imported (and
	// from which file).
	Info timeline.SourceInfo
	// Start is when the recording started.
	Start time.Time
}

// HeaderJSON is the header's JSON form: named fields, kinds as words,
// unknown numbers as null. A reader ignores fields it does not know, so a
// minor version may add some.
type HeaderJSON struct {
	GputopVersion string     `json:"gputop_version"`
	Start         time.Time  `json:"start"`
	Source        SourceJSON `json:"source"`
}

// SourceJSON is the source's description in the header's JSON.
type SourceJSON struct {
	Kind     string     `json:"kind"` // live, demo, replay, import
	Scenario string     `json:"scenario,omitempty"`
	Origin   string     `json:"origin,omitempty"`
	Recorded string     `json:"recorded,omitempty"` // for kind replay: what the replayed file was recorded from
	Host     string     `json:"host"`
	Driver   string     `json:"driver,omitempty"`
	CUDA     string     `json:"cuda,omitempty"`
	Interval string     `json:"interval"` // a Go duration: "1s", "250ms"
	GPUs     []gpuJSON  `json:"gpus"`
	Command  []string   `json:"command,omitempty"`
	Notes    []string   `json:"notes,omitempty"`
	Checks   []string   `json:"checks,omitempty"`
	Hosts    []HostJSON `json:"hosts,omitempty"` // 1.4: a session of several hosts
}

// HostJSON is one host of a session of several in the header's JSON.
type HostJSON struct {
	Name   string   `json:"name"`
	Driver string   `json:"driver,omitempty"`
	CUDA   string   `json:"cuda,omitempty"`
	Notes  []string `json:"notes,omitempty"`
}

type gpuJSON struct {
	Index      int      `json:"index"`
	Name       string   `json:"name"`
	UUID       string   `json:"uuid"`
	MemTotal   *float64 `json:"mem_total_bytes"` // null if unknown
	PowerLimit *float64 `json:"power_limit_w"`   // null if unknown
	GPM        bool     `json:"gpm"`
	MIG        bool     `json:"mig"`
	PCIBusID   string   `json:"pci_bus_id,omitempty"` // 1.4
	Host       string   `json:"host,omitempty"`       // 1.4: in a session of several hosts
	HostIndex  int      `json:"host_index,omitempty"` // 1.4: its NVML index on that host
	// 1.4: a MIG compute instance listed as a GPU of its own.
	MIGProfile         string `json:"mig_profile,omitempty"`
	MIGParent          int    `json:"mig_parent,omitempty"`
	MIGGPUInstance     int    `json:"mig_gpu_instance,omitempty"`
	MIGComputeInstance int    `json:"mig_compute_instance,omitempty"`
}

// known turns NaN (and ±Inf, which JSON cannot hold) into null.
func known(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// readKind parses a source kind. A kind from a newer minor version reads
// as import, a foreign source, with a note that says so.
func readKind(name string, notes *[]string) timeline.SourceKind {
	for _, k := range []timeline.SourceKind{timeline.Live, timeline.Demo, timeline.Replay, timeline.Imported} {
		if k.String() == name {
			return k
		}
	}
	*notes = append(*notes, fmt.Sprintf("recorded from a kind of source this gputop does not know: %q", name))
	return timeline.Imported
}

// SourceToJSON is a source's description as the header's "source" object
// and an info record hold it.
func SourceToJSON(in timeline.SourceInfo) SourceJSON {
	src := SourceJSON{
		Kind: in.Kind.String(), Scenario: in.Scenario, Origin: in.Origin,
		Host: in.Host, Driver: in.Driver, CUDA: in.CUDA, Interval: in.Interval.String(),
		GPUs: make([]gpuJSON, len(in.GPUs)), Command: in.Command, Notes: in.Notes, Checks: in.Checks,
	}
	if in.Kind == timeline.Replay {
		src.Recorded = in.Recorded.String()
	}
	for i, g := range in.GPUs {
		src.GPUs[i] = gpuJSON{Index: g.Index, Name: g.Name, UUID: g.UUID,
			MemTotal: known(g.MemTotal), PowerLimit: known(g.PowerLimit), GPM: g.GPM, MIG: g.MIG,
			PCIBusID: g.PCIBusID, Host: g.Host, HostIndex: g.HostIndex,
			MIGProfile: g.MIGProfile, MIGParent: g.MIGParent,
			MIGGPUInstance: g.MIGGPUInstance, MIGComputeInstance: g.MIGComputeInstance}
	}
	for _, h := range in.Hosts {
		src.Hosts = append(src.Hosts, HostJSON{Name: h.Name, Driver: h.Driver, CUDA: h.CUDA, Notes: h.Notes})
	}
	return src
}

// countsJSON is how many hosts and GPUs a description's JSON lists, read
// without making anything of them (an empty struct takes no memory), so
// that 250,000 GPUs are refused before they are decoded.
type countsJSON struct {
	GPUs  []struct{} `json:"gpus"`
	Hosts []struct{} `json:"hosts"`
}

func (c countsJSON) check() error { return timeline.CheckCounts(len(c.Hosts), len(c.GPUs)) }

// sourceFromJSON reads a source's description back, its counts checked
// already (countsJSON).
func sourceFromJSON(s SourceJSON) (timeline.SourceInfo, error) {
	in := timeline.SourceInfo{
		Host: s.Host, Driver: s.Driver, CUDA: s.CUDA, Scenario: s.Scenario, Origin: s.Origin,
		Command: s.Command, Notes: s.Notes, Checks: s.Checks,
	}
	in.Kind = readKind(s.Kind, &in.Notes)
	if s.Recorded != "" {
		in.Recorded = readKind(s.Recorded, &in.Notes)
	}
	if s.Interval != "" {
		d, err := time.ParseDuration(s.Interval)
		if err != nil {
			return timeline.SourceInfo{}, fmt.Errorf("interval: %w", err)
		}
		switch {
		case timeline.IntervalKnown(d):
			in.Interval = d
		case d != 0:
			// Nothing is sized by an interval of a nanosecond or a century:
			// it reads as unknown, and the notes say why.
			in.Notes = append(slices.Clip(in.Notes), fmt.Sprintf("the recorded interval %v is outside %v to %dh: taken as unknown",
				d, timeline.MinInterval, timeline.MaxInterval/time.Hour))
		}
	}
	for _, g := range s.GPUs {
		in.GPUs = append(in.GPUs, timeline.GPUInfo{Index: g.Index, Name: g.Name, UUID: g.UUID,
			MemTotal: orNaN(g.MemTotal), PowerLimit: orNaN(g.PowerLimit), GPM: g.GPM, MIG: g.MIG,
			PCIBusID: g.PCIBusID, Host: g.Host, HostIndex: g.HostIndex,
			MIGProfile: g.MIGProfile, MIGParent: g.MIGParent,
			MIGGPUInstance: g.MIGGPUInstance, MIGComputeInstance: g.MIGComputeInstance})
	}
	for _, h := range s.Hosts {
		in.Hosts = append(in.Hosts, timeline.HostInfo{Name: h.Name, Driver: h.Driver, CUDA: h.CUDA, Notes: h.Notes})
	}
	if err := in.CheckLimits(); err != nil {
		return timeline.SourceInfo{}, err
	}
	// Every text of the description is shown to someone: none of it can
	// move their terminal's cursor (see cursor.text).
	return timeline.CleanInfo(in), nil
}

// AppendHeaderFrame appends the skippable frame that opens every file:
// its body (headerBody) and a CRC-32C of it.
func AppendHeaderFrame(b []byte, h Header) ([]byte, error) {
	c, err := headerBody(h)
	if err != nil {
		return b, err
	}
	c = binary.LittleEndian.AppendUint32(c, crc32.Checksum(c, Castagnoli))
	if len(c) > MaxHeaderBytes {
		return b, errors.New("recording header: too large")
	}
	return AppendSkippable(b, FrameHeader, c), nil
}

// headerBody is what the header frame holds before its CRC, and what the
// copy of it that opens each segment holds (headercopy.go): FileMagic,
// major and minor version (uint16, little-endian), the JSON header.
func headerBody(h Header) ([]byte, error) {
	if err := h.Info.CheckLimits(); err != nil {
		return nil, fmt.Errorf("recording header: %w", err)
	}
	js, err := json.Marshal(HeaderJSON{GputopVersion: h.Version, Start: h.Start, Source: SourceToJSON(h.Info)})
	if err != nil {
		return nil, fmt.Errorf("recording header: %w", err)
	}
	c := binary.LittleEndian.AppendUint16([]byte(FileMagic), FormatVersion.Major)
	c = binary.LittleEndian.AppendUint16(c, FormatVersion.Minor)
	return append(c, js...), nil
}

// PrefixLen is how many bytes identify a file and its version.
const PrefixLen = SkippableHeader + len(FileMagic) + 4

// ParsePrefix checks a file's first bytes and returns the format version
// and the header frame's content length. Only errNotRecording comes back
// for a file that is not a recording.
func ParsePrefix(b []byte) (Version, int64, error) {
	if len(b) < PrefixLen ||
		binary.LittleEndian.Uint32(b) != SkippableMagic|FrameHeader ||
		string(b[SkippableHeader:SkippableHeader+len(FileMagic)]) != FileMagic {
		return Version{}, 0, errNotRecording
	}
	return versionAt(b[SkippableHeader+len(FileMagic):]), int64(binary.LittleEndian.Uint32(b[4:])), nil
}

// versionAt reads the version headerBody writes after FileMagic.
func versionAt(b []byte) Version {
	return Version{Major: binary.LittleEndian.Uint16(b), Minor: binary.LittleEndian.Uint16(b[2:])}
}

var errNotRecording = errors.New("not a recording")

// ParseHeaderContent decodes the header frame's content (after its
// skippable-frame magic and length): its body and CRC.
func ParseHeaderContent(c []byte) (Header, error) {
	if len(c) < len(FileMagic)+4+4 {
		return Header{}, ErrCutShort
	}
	body, sum := c[:len(c)-4], binary.LittleEndian.Uint32(c[len(c)-4:])
	if crc32.Checksum(body, Castagnoli) != sum {
		return Header{}, ErrBadCheck
	}
	return parseHeaderBody(body)
}

// parseHeaderBody decodes what headerBody wrote.
func parseHeaderBody(body []byte) (Header, error) {
	if len(body) < len(FileMagic)+4 || string(body[:len(FileMagic)]) != FileMagic {
		return Header{}, errNotRecording
	}
	js := body[len(FileMagic)+4:]
	var counts struct {
		Source countsJSON `json:"source"`
	}
	if err := json.Unmarshal(js, &counts); err != nil {
		return Header{}, fmt.Errorf("JSON: %w", err)
	}
	if err := counts.Source.check(); err != nil {
		return Header{}, err
	}
	var hj HeaderJSON
	if err := json.Unmarshal(js, &hj); err != nil {
		return Header{}, fmt.Errorf("JSON: %w", err)
	}
	info, err := sourceFromJSON(hj.Source)
	if err != nil {
		return Header{}, err
	}
	v := versionAt(body[len(FileMagic):])
	return Header{FormatVersion: v, Version: hj.GputopVersion, Start: hj.Start, Info: info}, nil
}
