package probes

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// diskSectorBytes is the unit of /proc/diskstats' sector counts: always
// 512 bytes, whatever the device's own sector size.
const diskSectorBytes = 512

// countsAsDisk decides whether a device in /proc/diskstats is a whole
// physical disk, whose bytes count towards host.disk_read_bytes and
// host.disk_write_bytes. /proc/diskstats lists every block device, and most
// bytes appear there more than once: a read from /dev/sda1 is also a read
// from /dev/sda, a write to an LVM or RAID volume (dm-0, md0) is also a write
// to the disks beneath it, and loop, ram and zram devices are memory or
// files on other disks. Counting whole physical disks alone counts each byte
// once, as it crosses to the hardware.
//
// The rule reads /sys/block, where the kernel lists whole block devices
// only (partitions live in their disk's directory), and where a device
// backed by hardware, real or virtual (sda, nvme0n1, vda, xvda, mmcblk0),
// has a "device" link to it. Virtual stacks (dm, md, loop, ram, zram, nbd)
// have none. Their name prefixes are refused as well, in case a kernel ever
// gives one a device link. A mirror (RAID 1) therefore counts its write to
// each disk: the bytes really are written twice.
func countsAsDisk(name string, inSysBlock, hasDeviceLink bool) bool {
	if !inSysBlock || !hasDeviceLink {
		return false
	}
	for _, virtual := range []string{"loop", "ram", "zram", "dm-", "md", "nbd"} {
		if len(name) >= len(virtual) && name[:len(virtual)] == virtual {
			return false
		}
	}
	return true
}

// parseDiskstats calls each for every well-formed line of /proc/diskstats
// with the device's name and its sectors read and written. Malformed lines
// are skipped. name aliases data.
func parseDiskstats(data []byte, each func(name []byte, readSectors, writtenSectors uint64)) {
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		// Fields (Documentation/admin-guide/iostats.rst): 0 major, 1 minor,
		// 2 name, 3 reads, 4 merged, 5 sectors read, 6 ms, 7 writes,
		// 8 merged, 9 sectors written, then more that gputop does not use.
		var fields [10][]byte
		n := 0
		for n < len(fields) {
			fields[n], line = nextField(line)
			if len(fields[n]) == 0 {
				break
			}
			n++
		}
		if n < len(fields) {
			continue
		}
		rd, err1 := strconv.ParseUint(string(fields[5]), 10, 64)
		wr, err2 := strconv.ParseUint(string(fields[9]), 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		each(fields[2], rd, wr)
	}
}

// nextField splits the first blank-separated field off line, without the
// allocation bytes.Fields would make for every line, every second.
func nextField(line []byte) (field, rest []byte) {
	start := 0
	for start < len(line) && (line[start] == ' ' || line[start] == '\t') {
		start++
	}
	end := start
	for end < len(line) && line[end] != ' ' && line[end] != '\t' {
		end++
	}
	return line[start:end], line[end:]
}

// diskCounters sums the bytes read and written by whole physical disks.
type diskCounters struct {
	statsPath string // /proc/diskstats
	sysBlock  string // /sys/block
	buf       []byte
	// verdicts caches countsAsDisk per device name: disks come and go
	// rarely, so /sys is consulted once per new name, not every second.
	verdicts map[string]bool
	counted  []string // the disks summed last time
	current  []string
}

func newDiskCounters(statsPath, sysBlock string) *diskCounters {
	return &diskCounters{statsPath: statsPath, sysBlock: sysBlock, verdicts: map[string]bool{}}
}

// read returns the bytes read and written by every whole physical disk
// since boot. Both are NaN when the set of disks changed since the last call
// (a disk plugged in would otherwise show its whole history as one second's
// traffic), or when /sys/block cannot be read to tell disks from the rest.
func (d *diskCounters) read() (readBytes, writtenBytes float64, err error) {
	d.buf, err = readFileInto(d.statsPath, d.buf)
	if err != nil {
		return math.NaN(), math.NaN(), err
	}
	if _, err := os.Stat(d.sysBlock); err != nil {
		return math.NaN(), math.NaN(), nil // no sysfs (some containers): unknown
	}
	var rd, wr uint64
	d.current = d.current[:0]
	parseDiskstats(d.buf, func(name []byte, r, w uint64) {
		counts, seen := d.verdicts[string(name)]
		if !seen {
			counts = d.classify(string(name))
		}
		if counts {
			rd += r
			wr += w
			d.current = append(d.current, d.name(name))
		}
	})
	changed := d.counted != nil && !slices.Equal(d.counted, d.current)
	d.counted, d.current = d.current, d.counted
	if d.counted == nil {
		d.counted = []string{} // the first read sets the baseline
	}
	if changed {
		return math.NaN(), math.NaN(), nil
	}
	return float64(rd) * diskSectorBytes, float64(wr) * diskSectorBytes, nil
}

// classify looks name up in /sys/block and remembers the verdict.
func (d *diskCounters) classify(name string) bool {
	dir := filepath.Join(d.sysBlock, name)
	_, errDir := os.Stat(dir)
	_, errLink := os.Stat(filepath.Join(dir, "device"))
	counts := countsAsDisk(name, errDir == nil, errLink == nil)
	d.verdicts[name] = counts
	return counts
}

// name returns the cached string for a disk's name, to avoid allocating
// one per disk per call.
func (d *diskCounters) name(b []byte) string {
	for _, s := range d.counted {
		if s == string(b) {
			return s
		}
	}
	return string(b)
}
