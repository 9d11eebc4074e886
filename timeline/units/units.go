package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// NA is how an unknown value reads.
const NA = "N/A"

func unknown(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }

// GPUs names GPUs by NVML index, runs collapsed: "GPU3", "GPU1-7",
// "GPU0-3,5"; "host" for none (a hint about the host). The indexes must be
// sorted.
func GPUs(idx []int) string {
	if len(idx) == 0 {
		return "host"
	}
	var b strings.Builder
	b.WriteString("GPU")
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(idx[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(idx[j]))
		}
		i = j + 1
	}
	return b.String()
}

// Clock is an offset from a start, as a clock reads it: "0:01:05",
// "26:00:00", "-0:00:01" (the report's times, since its first sample).
func Clock(d time.Duration) string {
	// Rounded before the sign is taken: a marker 0.3 s before the start
	// is at 0:00:00, not -0:00:00.
	s := int64(d.Round(time.Second) / time.Second)
	sign := ""
	if s < 0 {
		sign, s = "-", -s
	}
	return fmt.Sprintf("%s%d:%02d:%02d", sign, s/3600, s/60%60, s%60)
}

// Duration is a length of time as a person reads it, to the precision that
// matters at its size: "250ms", "4.5s", "45s", "9m30s", then whole
// minutes from ten on ("13m"), "2h54m", "3d04h".
func Duration(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	switch {
	case d == 0:
		return "0s"
	case d < time.Second:
		return sign + strconv.FormatInt(int64(d.Round(time.Millisecond)/time.Millisecond), 10) + "ms"
	case d < 10*time.Second && d.Round(100*time.Millisecond)%time.Second != 0:
		return sign + strconv.FormatFloat(d.Round(100*time.Millisecond).Seconds(), 'f', 1, 64) + "s"
	}
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%s%ds", sign, s)
	case s < 600 && s%60 != 0:
		return fmt.Sprintf("%s%dm%02ds", sign, s/60, s%60)
	case s < 3600-30:
		return fmt.Sprintf("%s%dm", sign, (s+30)/60)
	}
	m := (s + 30) / 60
	if m < 24*60 {
		if m%60 == 0 {
			return fmt.Sprintf("%s%dh", sign, m/60)
		}
		return fmt.Sprintf("%s%dh%02dm", sign, m/60, m%60)
	}
	h := (m + 30) / 60
	if h%24 == 0 {
		return fmt.Sprintf("%s%dd", sign, h/24)
	}
	return fmt.Sprintf("%s%dd%02dh", sign, h/24, h%24)
}

// Number is a value with no decimals, or one below 10 where it shows
// (0.5, 2.5): the precision hints' evidence and reports give.
func Number(v float64) string {
	if unknown(v) {
		return NA
	}
	if math.Abs(v) < 9.95 && math.Round(v) != math.Round(v*10)/10 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// Range is "lo-hi" with unit, or one value when both read alike:
// Range(0, 2.4, "%") is "0-2.4%".
func Range(lo, hi float64, unit string) string {
	l, h := Number(lo), Number(hi)
	if l == h {
		return l + unit
	}
	return l + "-" + h + unit
}

// Percent is a percentage: "97%", "0.5%".
func Percent(v float64) string {
	if unknown(v) {
		return NA
	}
	return Number(v) + "%"
}

// Share is a 0..1 fraction as a percentage. A share that is not quite none
// or all says so ("<1%", ">99%") rather than round to a claim.
func Share(frac float64) string {
	switch v := frac * 100; {
	case unknown(frac):
		return NA
	case v > 0 && v < 0.5:
		return "<1%"
	case v >= 99.5 && v < 100:
		return ">99%"
	}
	return strconv.FormatFloat(frac*100, 'f', 0, 64) + "%"
}

// binary are the units of Bytes, decimal those of Rate.
var (
	binary  = []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	decimal = []string{"B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s"}
)

// scaled is v in the unit that keeps it under 1000, each unit base times
// the one before: the unit's index in binary or decimal.
func scaled(v, base float64) (float64, int) {
	i := 0
	for math.Abs(v) >= 999.5 && i < len(binary)-1 {
		v /= base
		i++
	}
	return v, i
}

// withUnit is v, scaled, in three significant digits and its unit;
// whole numbers below the first step (bytes, bytes per second).
func withUnit(v, base float64, units []string) string {
	s, i := scaled(v, base)
	if i == 0 {
		return strconv.FormatFloat(s, 'f', 0, 64) + units[0]
	}
	return digits(s) + units[i]
}

// digits writes v with three significant digits: "512", "65.6", "80.0",
// "1.95".
func digits(v float64) string { return fixedLike(v, v) }

// Bytes is a size in binary units, three significant digits: "512MiB",
// "65.6GiB", "80.0GiB", "1.95TiB", "0B".
func Bytes(v float64) string {
	if unknown(v) {
		return NA
	}
	return withUnit(v, 1024, binary)
}

// BytesOf is used and total sharing the total's unit: "65.6/80.0GiB";
// the used part alone when the total is unknown, and each with its own
// unit when used is far smaller ("210MiB/1.95TiB").
func BytesOf(used, total float64) string {
	if unknown(total) || total <= 0 {
		return Bytes(used)
	}
	t, i := scaled(total, 1024)
	if unknown(used) {
		return NA + "/" + digits(t) + binary[i]
	}
	u := used / math.Pow(1024, float64(i))
	if i > 0 && u < 0.995 && used > 0 {
		return Bytes(used) + "/" + digits(t) + binary[i]
	}
	if i == 0 {
		return strconv.FormatFloat(u, 'f', 0, 64) + "/" + strconv.FormatFloat(t, 'f', 0, 64) + "B"
	}
	return fixedLike(u, t) + "/" + digits(t) + binary[i]
}

// fixedLike writes u with as many decimals as digits gives t, so that
// "65.6/80.0GiB" lines up.
func fixedLike(u, t float64) string {
	decimals := 0
	switch a := math.Abs(t); {
	case a < 9.995:
		decimals = 2
	case a < 99.95:
		decimals = 1
	}
	return strconv.FormatFloat(u, 'f', decimals, 64)
}

// Rate is bytes per second in decimal units, as bandwidth is quoted
// (PCIe 4.0 x16 moves 32GB/s): "1.20GB/s", "500MB/s", "45.3kB/s".
func Rate(v float64) string {
	if unknown(v) {
		return NA
	}
	return withUnit(v, 1000, decimal)
}

// whole is v to the nearest whole unit, then unit: "630W".
func whole(v float64, unit string) string {
	if unknown(v) {
		return NA
	}
	return strconv.FormatFloat(v, 'f', 0, 64) + unit
}

// Watts is a power in whole watts: "630W".
func Watts(v float64) string { return whole(v, "W") }

// WattsOf is a power and its limit: "630/700W"; "630W" when the limit is
// unknown, never "630/N/A".
func WattsOf(v, limit float64) string {
	if unknown(limit) || limit <= 0 {
		return Watts(v)
	}
	if unknown(v) {
		return NA + "/" + Watts(limit)
	}
	return whole(v, "/"+Watts(limit))
}

// Energy is joules: "754J", "1.2kJ", "3.50MJ".
func Energy(v float64) string {
	switch a := math.Abs(v); {
	case unknown(v):
		return NA
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', 2, 64) + "MJ"
	case a >= 1e3:
		return strconv.FormatFloat(v/1e3, 'f', 1, 64) + "kJ"
	}
	return strconv.FormatFloat(v, 'f', 0, 64) + "J"
}

// Celsius is a temperature: "65°C", or "65C" where only ASCII can be drawn.
func Celsius(v float64, ascii bool) string {
	if ascii {
		return whole(v, "C")
	}
	return whole(v, "°C")
}

// MHz is a clock: "1980MHz".
func MHz(v float64) string { return whole(v, "MHz") }

// Count is n things, in the singular for one: Count(1, "sample") is "1
// sample", Count(3, "sample") "3 samples"; an irregular plural is the third
// argument: Count(2, "process", "processes").
func Count(n int, noun string, plural ...string) string {
	if n == 1 {
		return "1 " + noun
	}
	many := noun + "s"
	if len(plural) > 0 {
		many = plural[0]
	}
	return strconv.Itoa(n) + " " + many
}
