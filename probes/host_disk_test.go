package probes

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestCountsAsDisk(t *testing.T) {
	tests := []struct {
		name                  string
		inSysBlock, hasDevice bool
		want                  bool
	}{
		{"sda", true, true, true},
		{"nvme0n1", true, true, true},
		{"vda", true, true, true},
		{"xvda", true, true, true},
		{"mmcblk0", true, true, true},
		// Partitions are not in /sys/block: their bytes are their disk's.
		{"sda1", false, false, false},
		{"nvme0n1p2", false, false, false},
		// Virtual stacks have no device link: their bytes reach a disk below.
		{"dm-0", true, false, false},
		{"md0", true, false, false},
		{"loop3", true, false, false},
		{"zram0", true, false, false},
		{"ram0", true, false, false},
		// Refused by name even if a kernel gave one a device link.
		{"loop0", true, true, false},
		{"dm-1", true, true, false},
		{"nbd0", true, true, false},
	}
	for _, tt := range tests {
		if got := countsAsDisk(tt.name, tt.inSysBlock, tt.hasDevice); got != tt.want {
			t.Errorf("countsAsDisk(%q, in /sys/block %v, device link %v) = %v, want %v",
				tt.name, tt.inSysBlock, tt.hasDevice, got, tt.want)
		}
	}
}

func TestParseDiskstats(t *testing.T) {
	data := []byte(`   7       0 loop0 12 0 2048 1 0 0 0 0 0 4 1 0 0 0 0
 259       0 nvme0n1 18026 4976 1013490 11205 1583 10958 905192 1464 0 1820 12931 3713 71 67448 260 4 0
 259       1 nvme0n1p1 100 0 800 1 20 0 160 1 0 1 1
   8       0 sda 1 0 8 0 2 0 16 0 0 0 0
garbage line
   8      16 sdb 1 0 x 0 2 0 16 0 0 0 0
   8      32 sdc 1 0 8`)
	type line struct {
		name   string
		rd, wr uint64
	}
	var got []line
	parseDiskstats(data, func(name []byte, rd, wr uint64) { got = append(got, line{string(name), rd, wr}) })
	want := []line{{"loop0", 2048, 0}, {"nvme0n1", 1013490, 905192}, {"nvme0n1p1", 800, 160}, {"sda", 8, 16}}
	if len(got) != len(want) {
		t.Fatalf("parsed %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: %v, want %v", i, got[i], want[i])
		}
	}
}

// fakeSysBlock builds a /sys/block with a device link for each disk.
func fakeSysBlock(t *testing.T, disks, virtual []string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "block")
	for _, name := range append(disks, virtual...) {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range disks {
		if err := os.Mkdir(filepath.Join(dir, name, "device"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDiskCountersSumWholeDisksOnce(t *testing.T) {
	sys := fakeSysBlock(t, []string{"sda", "nvme0n1"}, []string{"dm-0", "loop0"})
	stats := filepath.Join(t.TempDir(), "diskstats")
	writeFile(t, stats, `   8 0 sda 1 0 100 0 1 0 10 0 0 0 0
   8 1 sda1 1 0 100 0 1 0 10 0 0 0 0
 259 0 nvme0n1 1 0 1000 0 1 0 20 0 0 0 0
 253 0 dm-0 1 0 1100 0 1 0 30 0 0 0 0
   7 0 loop0 1 0 5000 0 0 0 0 0 0 0 0
`)
	d := newDiskCounters(stats, sys)
	rd, wr, err := d.read()
	if err != nil {
		t.Fatal(err)
	}
	if rd != 1100*512 || wr != 30*512 {
		t.Errorf("read %v, written %v bytes; want %v and %v (sda + nvme0n1 only)", rd, wr, 1100*512, 30*512)
	}

	// A disk plugged in: its whole history must not show as one tick's
	// traffic, so the sums are unknown for this one reading.
	if err := os.MkdirAll(filepath.Join(sys, "sdb", "device"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, stats, `   8 0 sda 1 0 200 0 1 0 10 0 0 0 0
   8 16 sdb 1 0 99999 0 1 0 99999 0 0 0 0
 259 0 nvme0n1 1 0 1000 0 1 0 20 0 0 0 0
`)
	if rd, wr, err := d.read(); err != nil || !math.IsNaN(rd) || !math.IsNaN(wr) {
		t.Errorf("after a disk appeared: %v, %v, %v; want NaN, NaN", rd, wr, err)
	}
	if rd, _, err := d.read(); err != nil || rd != (200+99999+1000)*512 {
		t.Errorf("next reading: %v, %v; want the three disks' sum", rd, err)
	}
}

func TestDiskCountersWithoutSysfsAreUnknown(t *testing.T) {
	stats := filepath.Join(t.TempDir(), "diskstats")
	writeFile(t, stats, "   8 0 sda 1 0 100 0 1 0 10 0 0 0 0\n")
	d := newDiskCounters(stats, filepath.Join(t.TempDir(), "no-sys-block"))
	if rd, wr, err := d.read(); err != nil || !math.IsNaN(rd) || !math.IsNaN(wr) {
		t.Errorf("without /sys/block: %v, %v, %v; want NaN, NaN, no error", rd, wr, err)
	}
	d = newDiskCounters(filepath.Join(t.TempDir(), "missing"), t.TempDir())
	if rd, _, err := d.read(); err == nil || !math.IsNaN(rd) {
		t.Errorf("without /proc/diskstats: %v, %v; want NaN and an error", rd, err)
	}
}

func FuzzParseDiskstats(f *testing.F) {
	f.Add([]byte(" 259 0 nvme0n1 18026 4976 1013490 11205 1583 10958 905192 1464 0 1820 12931 3713 71 67448 260 4 0\n"))
	f.Add([]byte("8 0 sda 1 0 8\n\n\t8 1 sda1 1 0 8 0 2 0 16 0 0 0 0"))
	f.Fuzz(func(t *testing.T, data []byte) {
		parseDiskstats(data, func(name []byte, rd, wr uint64) {
			if len(name) == 0 {
				t.Errorf("empty device name from %q", data)
			}
		})
	})
}
