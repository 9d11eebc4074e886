package probes

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"

	"github.com/shirou/gopsutil/v3/cpu"
)

// This file holds the small /proc readers that the self, tree and
// process-lookup probes share. They read into buffers the caller keeps, so a
// probe that runs every second does not allocate a new one each time.

// readFileInto reads the whole of a (small, /proc or /sys) file into buf,
// growing it if needed, and returns the filled slice. It uses the system
// calls directly: os.Open would allocate a File and try to register every
// /proc file with the network poller, for thousands of files a second when
// the tree probe walks /proc.
func readFileInto(path string, buf []byte) ([]byte, error) {
	fd, err := openRetry(path, syscall.O_RDONLY|syscall.O_CLOEXEC)
	if err != nil {
		return buf[:0], &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return buf, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// openRetry is syscall.Open, retried when a signal interrupts it.
func openRetry(path string, mode int) (int, error) {
	for {
		fd, err := syscall.Open(path, mode, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// pidStat is what gputop uses of /proc/PID/stat.
type pidStat struct {
	comm      []byte // the executable's name, up to 15 bytes; aliases the input
	state     byte   // R, S, D, Z (a zombie: exited, not yet reaped), ...
	ppid      int
	utime     uint64 // clock ticks, this process
	stime     uint64
	cutime    uint64 // clock ticks of children it has waited for
	cstime    uint64
	startTime uint64 // clock ticks after boot: with the pid, names one process
	rssPages  uint64
}

// errBadStat reports a /proc/PID/stat line that does not parse.
var errBadStat = errors.New("malformed /proc/PID/stat")

// parsePidStat parses one /proc/PID/stat line (proc(5)). The command name
// sits in parentheses and may itself hold spaces and parentheses, so the
// fields are counted from the last ')'.
func parsePidStat(data []byte) (pidStat, error) {
	var st pidStat
	open := bytes.IndexByte(data, '(')
	end := bytes.LastIndexByte(data, ')')
	if open < 0 || end < open {
		return st, errBadStat
	}
	st.comm = data[open+1 : end]
	// Fields after the command, numbered as in proc(5): 3 is the state.
	rest := data[end+1:]
	field := 2
	for len(rest) > 0 && field < 24 {
		rest = bytes.TrimLeft(rest, " ")
		cut := bytes.IndexByte(rest, ' ')
		if cut < 0 {
			cut = len(rest)
		}
		word := bytes.TrimRight(rest[:cut], "\n")
		rest = rest[cut:]
		if len(word) == 0 {
			break
		}
		field++
		var err error
		switch field {
		case 3:
			st.state = word[0]
		case 4:
			st.ppid, err = strconv.Atoi(string(word))
		case 14:
			st.utime, err = strconv.ParseUint(string(word), 10, 64)
		case 15:
			st.stime, err = strconv.ParseUint(string(word), 10, 64)
		case 16:
			st.cutime, err = parseClockTicks(word)
		case 17:
			st.cstime, err = parseClockTicks(word)
		case 22:
			st.startTime, err = strconv.ParseUint(string(word), 10, 64)
		case 24:
			st.rssPages, err = parseClockTicks(word)
		}
		if err != nil {
			return st, errBadStat
		}
	}
	if field < 24 {
		return st, errBadStat
	}
	return st, nil
}

// parseClockTicks parses a field the kernel prints as a signed long but that
// cannot really be negative (cutime, cstime, rss); a negative value counts
// as zero rather than wrapping to a huge number.
func parseClockTicks(word []byte) (uint64, error) {
	v, err := strconv.ParseInt(string(word), 10, 64)
	if v < 0 {
		v = 0
	}
	return uint64(v), err
}

// ticksToSeconds converts /proc clock ticks (USER_HZ) to seconds. gopsutil
// reads USER_HZ from sysconf once, at start.
func ticksToSeconds(ticks uint64) float64 { return float64(ticks) / cpu.ClocksPerSec }

// pageSize is the size of the pages /proc counts RSS in.
var pageSize = float64(os.Getpagesize())
