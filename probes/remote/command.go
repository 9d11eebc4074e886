package remote

import (
	"cmp"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// SplitCommand splits --ssh-command as a POSIX shell splits words: blanks
// separate them, single quotes keep everything, double quotes keep all but
// \" \\ \$ \`, a backslash outside quotes keeps the next character. It does
// no expansion ($VAR, globs, ~): the command runs without a shell, so what
// is written is what runs.
func SplitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
			continue
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("unclosed ' quote")
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("unclosed \" quote")
			}
		case c == '\\':
			if i+1 >= len(s) {
				return nil, errors.New("a lone \\ at the end")
			}
			i++
			cur.WriteByte(s[i])
		default:
			cur.WriteByte(c)
		}
		inWord = true // a quote, even an empty one, makes a word
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("no command given")
	}
	return words, nil
}

// Transport says how to reach a host.
type Transport struct {
	// Command runs before the host's name: nil is ssh's own command line
	// (DefaultSSH); --ssh-command's words otherwise.
	Command []string
	// Remote is the command run on the host, before its flags: "gputop".
	Remote string
}

// SSHOptions are what gputop adds to the user's ssh, before their own
// config, which keeps the rest (keys, agent, jump hosts, ControlMaster):
// no terminal (the stream is binary); no prompt, since eight hosts cannot
// all ask for a password on one terminal (use keys or an agent) and a
// prompt nobody answers would hang; a bounded wait to connect; and
// keepalives that notice a host gone silent (a dead link, a powered-off
// node) within 15 s, when no FIN ever comes.
var SSHOptions = []string{"-T", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10",
	"-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3"}

// isSSH says whether the transport is ssh, given its options (and its
// failures read as ssh's): the default, or an --ssh-command that runs ssh
// with options of its own ("ssh -F cluster.conf", "ssh -J bastion").
func (t Transport) isSSH() bool {
	return t.Command == nil || filepath.Base(t.Command[0]) == "ssh"
}

// argv is the command line that streams host at interval.
func (t Transport) argv(host string, interval time.Duration) []string {
	cmd, opts := t.Command, []string(nil)
	if cmd == nil {
		cmd = []string{"ssh"}
	}
	if t.isSSH() {
		opts = SSHOptions
	}
	return slices.Concat(cmd[:1], opts, cmd[1:], []string{host, t.remote(), "stream", "--interval", interval.String()})
}

// remote is the command run on the host: Remote, or "gputop".
func (t Transport) remote() string { return cmp.Or(t.Remote, "gputop") }

// String is the command line as a person would type it, for messages.
func (t Transport) String(host string, interval time.Duration) string {
	return strings.Join(t.argv(host, interval), " ")
}
