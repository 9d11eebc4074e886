package config

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// Settings are what a person sets once for every screen, in the settings
// file (~/.config/gputop/config.toml, or $XDG_CONFIG_HOME/gputop): the
// things they would otherwise change on screen every time. A flag given
// on the command line wins over the file.
//
//	interval = "2s"        # time between samples, as --interval
//	metric   = "sm"        # the detail graph's first metric (tab steps on)
//	layout   = "graph"     # auto, compact (a row a GPU), graph (the graph before the processes)
//	colors   = "never"     # auto, or never (as NO_COLOR)
//	ascii    = true        # as --ascii
//	mouse    = false       # leave the mouse to the terminal (select text)
type Settings struct {
	Interval time.Duration // 0: not set
	Metric   string        // a name of Metrics; "" for util
	Layout   string        // "", "auto", "compact", "graph"
	Colors   string        // "", "auto", "never"
	ASCII    bool
	NoMouse  bool // mouse = false
}

// Metrics names the detail graph's metrics in the settings file: a
// name, and the metric of timeline it means.
var Metrics = []struct{ Name, Metric string }{
	{"util", timeline.GPUUtil}, {"sm", timeline.GPUSMActive}, {"tensor", timeline.GPUTensor},
	{"power", timeline.GPUPower}, {"memory", timeline.GPUMemUsed}, {"temperature", timeline.GPUTemp},
	{"clock", timeline.GPUClockSM}, {"pcie-in", timeline.GPUPCIeRx}, {"pcie-out", timeline.GPUPCIeTx},
	{"dram", timeline.GPUDRAMBW},
}

var (
	settingKeys    = []string{"interval", "metric", "layout", "colors", "ascii", "mouse"}
	settingLayouts = []string{"auto", "compact", "graph"}
	settingColors  = []string{"auto", "never"}
)

// Parse reads a settings file: the small part of TOML it needs,
// "key = value" lines of strings ("2s"), booleans and integers, with #
// comments and blank lines; no tables. Anything else, an unknown key or a
// value it cannot take is one error naming the file and the line, and
// what it would take.
func Parse(data []byte, name string) (Settings, error) {
	var s Settings
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		at := fmt.Sprintf("%s:%d", name, n)
		line := strings.TrimSpace(stripComment(sc.Text()))
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "[") {
			return s, fmt.Errorf("%s: %s: gputop's settings have no tables; write key = value lines", at, line)
		}
		key, raw, ok := strings.Cut(line, "=")
		if !ok {
			return s, fmt.Errorf("%s: %q is not a setting; write key = value, as interval = \"2s\"", at, line)
		}
		key, raw = strings.TrimSpace(key), strings.TrimSpace(raw)
		if !slices.Contains(settingKeys, key) {
			return s, fmt.Errorf("%s: unknown setting %q (gputop knows %s)", at, key, strings.Join(settingKeys, ", "))
		}
		if seen[key] {
			return s, fmt.Errorf("%s: %s is set twice", at, key)
		}
		seen[key] = true
		if err := s.set(key, raw); err != nil {
			return s, fmt.Errorf("%s: %v", at, err)
		}
	}
	if err := sc.Err(); err != nil {
		return s, fmt.Errorf("%s: %v", name, err)
	}
	return s, nil
}

// set takes one value.
func (s *Settings) set(key, raw string) error {
	if key == "ascii" || key == "mouse" {
		if raw != "true" && raw != "false" {
			return fmt.Errorf("%s = %s: write true or false", key, raw)
		}
		if key == "ascii" {
			s.ASCII = raw == "true"
		} else {
			s.NoMouse = raw == "false"
		}
		return nil
	}
	v, err := tomlString(raw)
	if err != nil {
		return fmt.Errorf("%s = %s: %v", key, raw, err)
	}
	// The interval is a duration; the rest are one of a few words.
	var choices []string
	var to *string
	switch key {
	case "interval":
		s.Interval, err = parseInterval(v)
		return err
	case "metric":
		choices, to = metricNames(), &s.Metric
	case "layout":
		choices, to = settingLayouts, &s.Layout
	case "colors":
		choices, to = settingColors, &s.Colors
	}
	if !slices.Contains(choices, v) {
		return fmt.Errorf("%s = %q: it is one of %s", key, v, strings.Join(choices, ", "))
	}
	*to = v
	return nil
}

// parseInterval is the interval setting's value: a duration of 100ms or
// more.
func parseInterval(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("interval = %q is not a duration such as 500ms, 2s or 1m", v)
	}
	if d < 100*time.Millisecond {
		return 0, fmt.Errorf("interval = %q is too short; the shortest is 100ms", v)
	}
	return d, nil
}

// metricNames are the names the metric setting takes.
func metricNames() []string {
	names := make([]string, len(Metrics))
	for i, m := range Metrics {
		names[i] = m.Name
	}
	return names
}

// tomlString is a TOML basic ("...") or literal ('...') string's value.
func tomlString(raw string) (string, error) {
	switch {
	case len(raw) >= 2 && raw[0] == '\'' && raw[len(raw)-1] == '\'':
		return raw[1 : len(raw)-1], nil
	case len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"':
		v, err := strconv.Unquote(raw)
		if err != nil {
			return "", fmt.Errorf("a string it cannot read")
		}
		return v, nil
	}
	return "", fmt.Errorf("write the value in quotes")
}

// stripComment drops a # comment that is not inside a string.
func stripComment(line string) string {
	var quote byte
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case quote != 0 && c == '\\' && quote == '"':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		case quote == 0 && c == '#':
			return line[:i]
		}
	}
	return line
}
