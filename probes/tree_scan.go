package probes

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"syscall"
)

// procEntry is one process as a walk of /proc found it.
type procEntry struct {
	pid, ppid int
	startTime uint64 // clock ticks after boot: tells a reused pid from the original
	zombie    bool   // exited, not yet reaped by its parent
	// cpuTicks is user + system time of the process and of the children it
	// has reaped. Summed over a tree it only grows: when a child exits, its
	// time moves into its parent's share.
	cpuTicks uint64
	rssPages uint64
}

// procScanner reads /proc/PID/stat of every process, once per scan, into
// buffers it keeps: the directory is read with getdents into one buffer
// and parsed in place, so a host with a thousand processes costs a thousand
// small reads a second and next to no garbage.
type procScanner struct {
	root    string // "/proc"
	dirBuf  []byte
	statBuf []byte
	path    []byte
	entries []procEntry
}

func newProcScanner(root string) *procScanner {
	return &procScanner{root: root, dirBuf: make([]byte, 16<<10)}
}

// scan lists every process. A process that exits while the walk is under
// way is simply not listed; any other failure is returned with the
// processes that were read.
func (s *procScanner) scan() ([]procEntry, error) {
	fd, err := openRetry(s.root, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", s.root, err)
	}
	defer syscall.Close(fd)
	s.entries = s.entries[:0]
	var firstErr error
	for {
		n, err := syscall.ReadDirent(fd, s.dirBuf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return s.entries, fmt.Errorf("read %s: %w", s.root, err)
		}
		if n == 0 {
			return s.entries, firstErr
		}
		eachDirentName(s.dirBuf[:n], func(name []byte) {
			pid, ok := parsePID(name)
			if !ok {
				return
			}
			if err := s.read(pid); err != nil && firstErr == nil {
				firstErr = err
			}
		})
	}
}

// read adds one process's entry.
func (s *procScanner) read(pid int) error {
	s.path = append(s.path[:0], s.root...)
	s.path = append(s.path, '/')
	s.path = strconv.AppendInt(s.path, int64(pid), 10)
	s.path = append(s.path, "/stat"...)
	var err error
	s.statBuf, err = readFileInto(string(s.path), s.statBuf)
	if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ESRCH) {
		return nil // exited since the directory was listed
	}
	if err != nil {
		return err
	}
	st, err := parsePidStat(s.statBuf)
	if err != nil {
		return fmt.Errorf("%s: %w", s.path, err)
	}
	s.entries = append(s.entries, procEntry{
		pid:       pid,
		ppid:      st.ppid,
		startTime: st.startTime,
		zombie:    st.state == 'Z',
		cpuTicks:  st.utime + st.stime + st.cutime + st.cstime,
		rssPages:  st.rssPages,
	})
	return nil
}

// eachDirentName calls fn with the name of every linux_dirent64 record in
// buf, as getdents64(2) lays them out: inode (8 bytes), offset (8), record
// length (2), type (1), then the name, NUL-terminated and padded.
func eachDirentName(buf []byte, fn func(name []byte)) {
	const nameAt = 19
	for len(buf) >= nameAt {
		reclen := int(binary.NativeEndian.Uint16(buf[16:18]))
		if reclen < nameAt || reclen > len(buf) {
			return
		}
		name := buf[nameAt:reclen]
		if i := slices.Index(name, 0); i >= 0 {
			name = name[:i]
		}
		fn(name)
		buf = buf[reclen:]
	}
}

// parsePID reads a /proc entry's name as a process id; other entries
// ("self", "meminfo", ...) are not processes.
func parsePID(name []byte) (int, bool) {
	if len(name) == 0 || len(name) > 9 {
		return 0, false
	}
	pid := 0
	for _, c := range name {
		if c < '0' || c > '9' {
			return 0, false
		}
		pid = pid*10 + int(c-'0')
	}
	return pid, pid > 0
}

// treeOf returns root's entry and every descendant of it, root first, in
// breadth-first order, appended to dst; found is false when root is not
// among procs. It sorts procs by parent in place.
//
// Children are found by parent id, never by comparing pids: pids wrap, so
// a child can have a smaller pid than its parent.
func treeOf(root int, procs []procEntry, dst []procEntry) (members []procEntry, found bool) {
	members = dst[:0]
	for _, e := range procs {
		if e.pid == root {
			members = append(members, e)
			found = true
			break
		}
	}
	if !found {
		return members, false
	}
	slices.SortFunc(procs, func(a, b procEntry) int { return a.ppid - b.ppid })
	for i := 0; i < len(members); i++ {
		parent := members[i].pid
		first := sort.Search(len(procs), func(j int) bool { return procs[j].ppid >= parent })
		for j := first; j < len(procs) && procs[j].ppid == parent; j++ {
			// The walk is not atomic: a pid reused mid-walk could list root
			// as a child of its own descendant. Never enter root twice.
			if procs[j].pid != root {
				members = append(members, procs[j])
			}
		}
	}
	return members, true
}
