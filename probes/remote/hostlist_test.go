package remote

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestParseHosts(t *testing.T) {
	tests := []struct {
		list string
		want []string
	}{
		{"node1", []string{"node1"}},
		{"node1,node2,node[3-8]", []string{"node1", "node2", "node3", "node4", "node5", "node6", "node7", "node8"}},
		{"gpu[01-03]", []string{"gpu01", "gpu02", "gpu03"}},
		{"gpu[08-11]", []string{"gpu08", "gpu09", "gpu10", "gpu11"}},
		{"gpu[001-002]", []string{"gpu001", "gpu002"}},
		{"a[1-2,5]", []string{"a1", "a2", "a5"}},
		{"rack[1-2]-n[1-2]", []string{"rack1-n1", "rack1-n2", "rack2-n1", "rack2-n2"}},
		{"n[1-3].example.org", []string{"n1.example.org", "n2.example.org", "n3.example.org"}},
		// Duplicates go, the first keeping its place.
		{"node2,node[1-3],node2", []string{"node2", "node1", "node3"}},
		{" node1 , node2 ", []string{"node1", "node2"}},
		{"root@node1,10.0.0.7,fe80::1%eth0", []string{"root@node1", "10.0.0.7", "fe80::1%eth0"}},
		{"n[7]", []string{"n7"}},
		{"n[0-1]", []string{"n0", "n1"}},
	}
	for _, tt := range tests {
		got, err := ParseHosts(tt.list)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ParseHosts(%q) = %q, %v; want %q", tt.list, got, err, tt.want)
		}
	}
}

func TestParseHostsRefusesInOneLine(t *testing.T) {
	tests := []struct{ list, want string }{
		{"", "no hosts given"},
		{"node1,,node2", "empty host name"},
		{"node[3-", `"[" without "]"`},
		{"node3]", `"]" without "["`},
		{"node[[1]]", "cannot nest"},
		{"node[]", "empty brackets"},
		{"node[8-3]", "runs backwards"},
		{"node[a-c]", `"a" is not a number`},
		{"node[1-]", `"" is not a number`},
		{"node[1-2000]", "more than 1024 hosts"},
		{"r[1-40]n[1-40]", "more than 1024 hosts"},
		{"n[1-999999999]", "more than 1024 hosts"},
		{"-oProxyCommand=x", `starts with "-"`},
		{"node 1", `' ' cannot be in a host name`},
		{"node;rm", `';' cannot be in a host name`},
		{"node$(x)", `'$' cannot be in a host name`},
	}
	for _, tt := range tests {
		_, err := ParseHosts(tt.list)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseHosts(%q) = %v; want one line with %q", tt.list, err, tt.want)
		}
	}
}

func TestParseHostsTakesTheMostItAllows(t *testing.T) {
	got, err := ParseHosts(fmt.Sprintf("n[1-%d]", MaxHosts))
	if err != nil || len(got) != MaxHosts {
		t.Fatalf("%d hosts, %v", len(got), err)
	}
}

func FuzzParseHosts(f *testing.F) {
	for _, s := range []string{"node1,node2,node[3-8]", "gpu[01-16]", "a[1-2,5]", "r[1-2]n[01-4]x", "n[", "n[9-1]", ",", "a@b:c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, list string) {
		hosts, err := ParseHosts(list)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error of two lines: %q", err)
			}
			return
		}
		if len(hosts) == 0 || len(hosts) > MaxHosts {
			t.Fatalf("%d hosts from %q", len(hosts), list)
		}
		seen := map[string]bool{}
		for _, h := range hosts {
			if seen[h] || checkName(h) != nil {
				t.Fatalf("host %q of %q: duplicate or invalid", h, list)
			}
			seen[h] = true
		}
	})
}
