package probes

import (
	"bytes"
	"math"
	"os"
	"os/user"
	"strconv"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gputop-dev/gputop/timeline"
)

// forgetAfter is how long a PID is remembered after its last lookup. The
// process tier asks every few seconds about the PIDs that hold a GPU, so a
// PID not asked about for a minute belongs to a process that has let go.
const forgetAfter = time.Minute

// maxCommandBytes bounds a command line. The screen shows far less, and a
// process list is kept every few seconds in the store and recordings.
const maxCommandBytes = 256

// initPIDNamespace is the inode of the host's (initial) PID namespace,
// fixed by the kernel (PROC_PID_INIT_INO).
const initPIDNamespace = "pid:[4026531836]"

// processLookup is the ProcessLookup that reads /proc.
type processLookup struct {
	proc     string           // "/proc"
	now      func() time.Time // real time: a CPU share needs the real time between two readings
	hostPIDs bool             // /proc numbers processes as NVML does

	mu        sync.Mutex
	seen      map[int]*seenProcess
	users     map[uint32]string
	lastSweep time.Time
	buf       []byte
	// bootTime is when the host booted, from /proc/stat's btime, read
	// once: a process's start is counted from it. Zero if unknown.
	bootTime time.Time
	bootRead bool
}

// seenProcess is what the lookup remembers of a PID between two lookups.
type seenProcess struct {
	startTime uint64 // tells the process from a later one with the same PID
	cpuTicks  uint64 // user + system at the last lookup
	at        time.Time
	// workload is what its cgroup said at its first lookup: a process
	// seldom moves, and the file is long under cgroup v1.
	workload *timeline.Workload
}

// NewProcessLookup returns the ProcessLookup that reads /proc.
//
// NVML reports the host's PIDs. When gputop runs in a container with its own
// PID namespace, /proc numbers processes differently, and a host PID may name
// an unrelated process in the container, or none: then every lookup says
// false rather than risk describing the wrong process.
func NewProcessLookup() ProcessLookup {
	ns, err := os.Readlink("/proc/self/ns/pid")
	// If the namespace cannot be read (a very old kernel), trust /proc.
	hostPIDs := err != nil || ns == initPIDNamespace
	return newProcessLookup("/proc", hostPIDs, time.Now)
}

func newProcessLookup(proc string, hostPIDs bool, now func() time.Time) *processLookup {
	return &processLookup{
		proc:     proc,
		now:      now,
		hostPIDs: hostPIDs,
		seen:     map[int]*seenProcess{},
		users:    map[uint32]string{},
	}
}

// Lookup describes pid: its user, command line, CPU share since the previous
// lookup of the same process (NaN the first time) and RSS. It returns false
// when the process is not visible here.
func (l *processLookup) Lookup(pid int) (ProcessInfo, bool) {
	if !l.hostPIDs || pid <= 0 {
		return ProcessInfo{}, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.sweep(now)

	dir := l.proc + "/" + strconv.Itoa(pid)
	var err error
	if l.buf, err = readFileInto(dir+"/stat", l.buf); err != nil {
		delete(l.seen, pid)
		return ProcessInfo{}, false
	}
	st, err := parsePidStat(l.buf)
	if err != nil {
		return ProcessInfo{}, false
	}
	comm := string(st.comm) // the buffer is reused below
	info := ProcessInfo{CPU: math.NaN(), RSS: float64(st.rssPages) * pageSize}
	ticks := st.utime + st.stime
	prev := l.seen[pid]
	if prev != nil && prev.startTime == st.startTime && ticks >= prev.cpuTicks {
		if dt := now.Sub(prev.at).Seconds(); dt > 0 {
			info.CPU = ticksToSeconds(ticks-prev.cpuTicks) / dt * 100
		}
	}
	known := prev != nil && prev.startTime == st.startTime
	if prev == nil {
		prev = &seenProcess{}
		l.seen[pid] = prev
	}
	workload := prev.workload
	if !known {
		workload = nil
		if l.buf, err = readFileInto(dir+"/cgroup", l.buf); err == nil {
			if w := ParseCgroup(l.buf); !w.IsZero() {
				workload = &w
			}
		}
	}
	*prev = seenProcess{startTime: st.startTime, cpuTicks: ticks, at: now, workload: workload}
	info.Workload = workload
	if boot := l.boot(); !boot.IsZero() {
		info.Started = boot.Add(time.Duration(ticksToSeconds(st.startTime) * float64(time.Second))).Truncate(10 * time.Millisecond)
	}

	if l.buf, err = readFileInto(dir+"/cmdline", l.buf); err != nil {
		l.buf = l.buf[:0] // exited meanwhile: fall back to the name from stat
	}
	info.Command = commandLine(l.buf, comm)
	if l.buf, err = readFileInto(dir+"/status", l.buf); err == nil {
		if uid, ok := parseStatusUID(l.buf); ok {
			info.User = l.userName(uid)
		}
	}
	return info, true
}

// boot reads the host's boot time once.
func (l *processLookup) boot() time.Time {
	if l.bootRead {
		return l.bootTime
	}
	l.bootRead = true
	var err error
	if l.buf, err = readFileInto(l.proc+"/stat", l.buf); err == nil {
		if secs, ok := parseBootTime(l.buf); ok {
			l.bootTime = time.Unix(secs, 0)
		}
	}
	return l.bootTime
}

// parseBootTime reads the "btime <seconds since the epoch>" line of
// /proc/stat.
func parseBootTime(stat []byte) (int64, bool) {
	for line := range bytes.Lines(stat) {
		rest, ok := bytes.CutPrefix(line, []byte("btime "))
		if !ok {
			continue
		}
		v, err := strconv.ParseInt(string(bytes.TrimSpace(rest)), 10, 64)
		return v, err == nil && v > 0
	}
	return 0, false
}

// sweep forgets PIDs not looked up for forgetAfter, at most once per
// forgetAfter, so the map holds only the processes of the last minute or two.
func (l *processLookup) sweep(now time.Time) {
	if now.Sub(l.lastSweep) < forgetAfter {
		return
	}
	l.lastSweep = now
	for pid, p := range l.seen {
		if now.Sub(p.at) >= forgetAfter {
			delete(l.seen, pid)
		}
	}
}

// userName resolves a uid once: the lookup may go through NSS (LDAP, sssd)
// and take a while. An unknown uid shows as its number, as ps shows it.
func (l *processLookup) userName(uid uint32) string {
	if name, ok := l.users[uid]; ok {
		return name
	}
	id := strconv.FormatUint(uint64(uid), 10)
	name := id
	if u, err := user.LookupId(id); err == nil && u.Username != "" {
		name = u.Username
	}
	l.users[uid] = name
	return name
}

// parseStatusUID reads the real uid from /proc/PID/status's
// "Uid:\treal\teffective\tsaved\tfs" line.
func parseStatusUID(status []byte) (uint32, bool) {
	for line := range bytes.Lines(status) {
		rest, ok := bytes.CutPrefix(line, []byte("Uid:"))
		if !ok {
			continue
		}
		field, _ := nextField(rest)
		uid, err := strconv.ParseUint(string(field), 10, 32)
		if err != nil {
			return 0, false
		}
		return uint32(uid), true
	}
	return 0, false
}

// commandLine turns /proc/PID/cmdline (arguments separated by NULs) into one
// line, as nvitop shows it: the arguments joined by spaces, trimmed, cut to
// maxCommandBytes. A process without a command line (a kernel thread, a
// zombie) shows its name in brackets, as ps does; "" if even that is
// unknown.
func commandLine(cmdline []byte, comm string) string {
	if line := printableLine(cmdline); line != "" {
		return line
	}
	if name := printableLine([]byte(comm)); name != "" {
		return "[" + name + "]"
	}
	return ""
}

// printableLine joins the words of b with single spaces, at most
// maxCommandBytes of them. NULs, whitespace and control characters (which an
// argument may hold, and which would move a terminal's cursor) separate
// words; bytes that are not UTF-8 become U+FFFD.
func printableLine(b []byte) string {
	var out bytes.Buffer
	space := false
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		if r == 0 || unicode.IsControl(r) || unicode.IsSpace(r) {
			space = out.Len() > 0
			continue
		}
		n := utf8.RuneLen(r)
		if space {
			n++
		}
		if out.Len()+n > maxCommandBytes {
			break
		}
		if space {
			out.WriteByte(' ')
			space = false
		}
		out.WriteRune(r)
	}
	return out.String()
}
