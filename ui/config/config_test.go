package config

import (
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	good := `# gputop's settings
interval = "2s"   # as --interval
metric = 'sm'
layout = "compact"
colors = "never"
ascii = true
`
	s, err := Parse([]byte(good), "config.toml")
	if err != nil {
		t.Fatal(err)
	}
	if s != (Settings{Interval: 2 * time.Second, Metric: "sm", Layout: "compact", Colors: "never", ASCII: true}) {
		t.Fatalf("%+v", s)
	}
	if s, err := Parse(nil, "config.toml"); err != nil || s != (Settings{}) {
		t.Fatalf("an empty file is no settings: %+v %v", s, err)
	}
	for _, c := range []struct{ in, want string }{
		{`interval = "5x"`, `config.toml:1: interval = "5x" is not a duration such as 500ms, 2s or 1m`},
		{`interval = "10ms"`, `config.toml:1: interval = "10ms" is too short; the shortest is 100ms`},
		{`interval = 2`, `config.toml:1: interval = 2: write the value in quotes`},
		{"\nmetric = \"gpu\"", `config.toml:2: metric = "gpu": it is one of util, sm, tensor, power, memory, temperature, clock, pcie-in, pcie-out, dram`},
		{`layout = "big"`, `config.toml:1: layout = "big": it is one of auto, compact, graph`},
		{`colors = "red"`, `config.toml:1: colors = "red": it is one of auto, never`},
		{`ascii = yes`, `config.toml:1: ascii = yes: write true or false`},
		{`theme = "dark"`, `config.toml:1: unknown setting "theme" (gputop knows interval, metric, layout, colors, ascii, mouse)`},
		{`[screen]`, `config.toml:1: [screen]: gputop's settings have no tables; write key = value lines`},
		{`interval`, `config.toml:1: "interval" is not a setting; write key = value, as interval = "2s"`},
		{"metric = \"sm\"\nmetric = \"util\"", `config.toml:2: metric is set twice`},
		{`metric = "sm`, `config.toml:1: metric = "sm: write the value in quotes`},
	} {
		_, err := Parse([]byte(c.in), "config.toml")
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: the error is more than one line", c.in)
		}
	}
}
