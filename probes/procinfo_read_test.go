package probes

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestParsePidStat(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    pidStat
		wantErr bool
	}{
		{
			name: "python worker",
			in:   "4242 (python3) S 4200 4242 4200 0 -1 4194560 9000 0 0 0 1234 56 7 8 20 0 12 0 99887766 2147483648 51200 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0\n",
			want: pidStat{comm: []byte("python3"), state: 'S', ppid: 4200, utime: 1234, stime: 56, cutime: 7, cstime: 8, startTime: 99887766, rssPages: 51200},
		},
		{
			name: "command with spaces and parentheses",
			in:   "77 (a) (b c) R 1 77 77 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 0 3 0\n",
			want: pidStat{comm: []byte("a) (b c"), state: 'R', ppid: 1, utime: 5, stime: 6, startTime: 100, rssPages: 3},
		},
		{
			name: "negative child times count as none",
			in:   "9 (x) S 1 9 9 0 -1 0 0 0 0 0 1 2 -3 -4 20 0 1 0 5 0 -1 0",
			want: pidStat{comm: []byte("x"), state: 'S', ppid: 1, utime: 1, stime: 2, startTime: 5},
		},
		{name: "truncated", in: "9 (x) S 1 9 9 0 -1 0 0 0 0 0 1 2", wantErr: true},
		{name: "no command", in: "9 x S 1 9 9", wantErr: true},
		{name: "not a number", in: "9 (x) S one 9 9 0 -1 0 0 0 0 0 1 2 3 4 20 0 1 0 5 0 1 0", wantErr: true},
		{name: "empty", in: "", wantErr: true},
		{
			name: "zombie",
			in:   "12 (sleep) Z 1 12 12 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 7 0 0 0\n",
			want: pidStat{comm: []byte("sleep"), state: 'Z', ppid: 1, startTime: 7},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parsePidStat([]byte(tt.in))
			if tt.wantErr {
				if !errors.Is(err, errBadStat) {
					t.Errorf("err = %v, want errBadStat", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v (comm %q), want %+v (comm %q)", got, got.comm, tt.want, tt.want.comm)
			}
		})
	}
}

func TestParsePidStatOfThisProcess(t *testing.T) {
	data, err := readFileInto("/proc/self/stat", nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := parsePidStat(data)
	if err != nil {
		t.Fatalf("parse %q: %v", data, err)
	}
	if st.ppid != os.Getppid() || st.rssPages == 0 || st.startTime == 0 {
		t.Errorf("got %+v, want ppid %d and a resident, started process", st, os.Getppid())
	}
}

func TestReadFileIntoGrowsAndReuses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	text := bytes.Repeat([]byte("0123456789"), 1000)
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	buf, err := readFileInto(path, make([]byte, 0, 16))
	if err != nil || !bytes.Equal(buf, text) {
		t.Fatalf("read %d bytes, %v; want the %d written", len(buf), err, len(text))
	}
	again, err := readFileInto(path, buf)
	if err != nil || &again[0] != &buf[0] {
		t.Errorf("second read did not reuse the buffer (err %v)", err)
	}
	if _, err := readFileInto(filepath.Join(t.TempDir(), "missing"), buf); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want ErrNotExist", err)
	}
}

func FuzzParsePidStat(f *testing.F) {
	f.Add([]byte("1 (systemd) S 0 1 1 0 -1 4194560 1 2 3 4 5 6 7 8 20 0 1 0 9 10 11 12\n"))
	f.Add([]byte("2 ()) R 1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := parsePidStat(data)
		if err == nil && !bytes.Contains(data, st.comm) {
			t.Errorf("comm %q is not from the input %q", st.comm, data)
		}
	})
}
