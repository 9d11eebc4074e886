package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"unicode/utf8"

	"github.com/gputop-dev/gputop/packaging/clidoc"
	"github.com/gputop-dev/gputop/timeline"
)

// How gputop's messages read: the important part first, in one line of
// at most 80 columns where that can be done, so a terminal of 80 columns
// shows it whole.

// messageWidth is the width every one-line message fits, so that a
// terminal of 80 columns shows it whole.
const messageWidth = 80

// withHelpHint adds where the command's flags are explained to a usage
// error's line, where it still fits the width of a message: the error
// itself comes first.
func withHelpHint(line, name string) string {
	hinted := fmt.Sprintf("%s (see gputop %s --help)", line, name)
	if utf8.RuneCountInString(hinted) > messageWidth {
		return line
	}
	return hinted
}

// oneLine is an error as one line: an open or write error names the file
// first ("run.gtr: no such file or directory", not "open run.gtr: ..."), a
// message of several lines is joined, escape sequences it quotes are cut.
func oneLine(err error) string {
	var pe *fs.PathError
	msg := err.Error()
	if errors.As(err, &pe) && msg == pe.Error() {
		msg = pe.Path + ": " + pe.Err.Error()
	}
	return timeline.CleanText(strings.ReplaceAll(strings.TrimSpace(msg), "\n", "; "))
}

// printNote writes a note (what a log import made of its input, a demo's
// scenario) wrapped to 80 columns, its lines after the first indented.
func printNote(w io.Writer, note string) {
	fmt.Fprintf(w, "note: %s\n", strings.Join(clidoc.Wrap(note, messageWidth-len("note: ")), "\n      "))
}

// badTime says that a flag's time could not be read, and what can be.
func badTime(flag, arg string) error {
	return usageError{fmt.Sprintf("%s %q is not a time: try 14:03, +10m, -5m or a date", flag, arg)}
}
