//go:build linux

package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

func main() {
	size := flag.String("size", "120x40", "the terminal's size, WxH")
	text := flag.String("text", "", "the text that says the first frame is drawn (required)")
	timeout := flag.Duration("timeout", 30*time.Second, "how long to wait for the text")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: firstframe [-size WxH] [-timeout D] -text TEXT -- PROGRAM [ARGS...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	var w, h int
	if _, err := fmt.Sscanf(*size, "%dx%d", &w, &h); err != nil || w < 1 || h < 1 || w > 1000 || h > 1000 {
		fail(2, "-size %q: want WxH, as 120x40", *size)
	}
	if *text == "" || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	took, err := measure(flag.Args(), w, h, *text, *timeout)
	if err != nil {
		fail(1, "%v", err)
	}
	fmt.Printf("first frame: %d ms (%q on a %dx%d terminal)\n", took.Milliseconds(), *text, w, h)
}

func fail(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "firstframe: "+format+"\n", args...)
	os.Exit(code)
}

// measure starts argv on a new pseudo-terminal of w x h and returns the
// time from its start until text was written to the terminal. It answers
// the questions a program asks its terminal as it starts (the colours, the
// cursor's place), as a terminal does: unanswered, they hold the first
// frame back until the program gives up on them. Once the text is seen the
// program is asked to quit (q), and killed if it has not within 3 s.
func measure(argv []string, w, h int, text string, timeout time.Duration) (time.Duration, error) {
	master, slave, err := openPTY(w, h)
	if err != nil {
		return 0, err
	}
	defer master.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		slave.Close()
		return 0, err
	}
	slave.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		master.Write([]byte("q"))
		select {
		case <-exited:
		case <-time.After(3 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	}()

	seen := make(chan time.Duration, 1)
	go watch(master, text, start, seen)
	select {
	case took, ok := <-seen:
		if !ok {
			return 0, fmt.Errorf("%s ended its output without writing %q", argv[0], text)
		}
		return took, nil
	case <-time.After(timeout):
		return 0, fmt.Errorf("%s did not write %q within %s", argv[0], text, timeout)
	}
}

// watch reads what the program writes, answers its terminal queries, and
// sends how long after start text first appeared; it closes seen if the
// output ends before.
func watch(master *os.File, text string, start time.Time, seen chan<- time.Duration) {
	answers := []struct{ query, reply string }{
		{"\x1b]10;?", "\x1b]10;rgb:ffff/ffff/ffff\x1b\\"}, // foreground colour
		{"\x1b]11;?", "\x1b]11;rgb:0000/0000/0000\x1b\\"}, // background colour
		{"\x1b[6n", "\x1b[1;1R"},                          // cursor position
		{"\x1b[c", "\x1b[?62;22c"},                        // primary device attributes
	}
	// A query or the text may be split between reads: the tail of the last
	// read is searched again with the next.
	keep := len(text)
	for _, a := range answers {
		keep = max(keep, len(a.query))
	}
	var window []byte
	buf := make([]byte, 64<<10)
	for {
		n, err := master.Read(buf)
		if n > 0 {
			old := len(window)
			window = append(window, buf[:n]...)
			for _, a := range answers {
				if i := bytes.LastIndex(window, []byte(a.query)); i >= 0 && i+len(a.query) > old {
					master.WriteString(a.reply)
				}
			}
			if bytes.Contains(window, []byte(text)) {
				seen <- time.Since(start)
				// Read on until the terminal closes: the program is never
				// held up writing to it while it quits.
				io.Copy(io.Discard, master)
				return
			}
			window = window[max(0, len(window)-keep):]
		}
		if err != nil {
			// EIO: the program and every child closed the terminal.
			close(seen)
			return
		}
	}
}

// openPTY opens a pseudo-terminal of w x h: its master, and the slave the
// program gets as its terminal.
func openPTY(w, h int) (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("no pseudo-terminal: %w", err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err == nil {
		err = unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0)
	}
	if err == nil {
		slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	}
	if err == nil {
		err = unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(w), Row: uint16(h)})
	}
	if err != nil {
		master.Close()
		if slave != nil {
			slave.Close()
		}
		return nil, nil, fmt.Errorf("cannot set up a pseudo-terminal: %w", err)
	}
	return master, slave, nil
}
