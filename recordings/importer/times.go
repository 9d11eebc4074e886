package importer

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// Timestamps the logs carry, and how they are read:
//
//	2025/07/27 00:34:45.155      nvidia-smi's timestamp column: no zone, read as UTC
//	2025-09-24T03:17:04.490Z     ISO-8601 with a zone (or an offset): exact
//	2025-09-24 03:17:04          ISO-8601 without a zone: read as UTC
//	1661698242                   epoch seconds (DCGM); milli-, micro- and
//	                             nanoseconds are told apart by magnitude
//	Sat Jul 27 00:34:45 2025     C's asctime: no zone, read as UTC
//
// The first four are read by hand: a 100 ms log of eight GPUs has half a
// million of them, and time.Parse would be most of the import's time.

// Times outside these years are corrupt, and refusing them keeps every
// difference between two times inside time.Duration.
var (
	minTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
)

// parseTime reads one timestamp. zoned says whether the text carried its
// time zone; without one the time is read as UTC.
func parseTime(s string) (t time.Time, zoned bool, err error) {
	if t, zoned, ok := parseISOish(s); ok {
		return checkRange(s, t, zoned)
	}
	if t, ok := parseEpoch(s); ok {
		return checkRange(s, t, true)
	}
	if t, err := time.Parse(time.ANSIC, s); err == nil {
		return checkRange(s, t, false)
	}
	return time.Time{}, false, fmt.Errorf("timestamp %q: not a date and time this importer reads", s)
}

func checkRange(s string, t time.Time, zoned bool) (time.Time, bool, error) {
	if t.Before(minTime) || !t.Before(maxTime) {
		return time.Time{}, false, fmt.Errorf("timestamp %q: outside %d-%d", s, minTime.Year(), maxTime.Year()-1)
	}
	return t, zoned, nil
}

// parseISOish reads "YYYY?MM?DD?hh:mm:ss[.frac][zone]" where the date
// separators are '/' or '-', the date-time separator is ' ' or 'T', and the
// zone is "Z", "+hh:mm", "+hhmm" or " +hhmm".
func parseISOish(s string) (time.Time, bool, bool) {
	if len(s) < 19 || (s[4] != '/' && s[4] != '-') || s[7] != s[4] || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false, false
	}
	year, ok1 := digits(s[0:4])
	month, ok2 := digits(s[5:7])
	day, ok3 := digits(s[8:10])
	hour, ok4 := digits(s[11:13])
	minute, ok5 := digits(s[14:16])
	sec, ok6 := digits(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || sec > 60 {
		return time.Time{}, false, false
	}
	rest := s[19:]
	nanos := 0
	if len(rest) > 0 && (rest[0] == '.' || rest[0] == ',') {
		i := 1
		scale := 100_000_000
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			nanos += int(rest[i]-'0') * scale
			scale /= 10
			i++
		}
		if i == 1 {
			return time.Time{}, false, false
		}
		rest = rest[i:]
	}
	loc, zoned, ok := parseZone(rest)
	if !ok {
		return time.Time{}, false, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nanos, loc)
	if t.Day() != day {
		return time.Time{}, false, false // 2025/02/31
	}
	return t.UTC(), zoned, true
}

// parseZone reads a timestamp's zone suffix; "" is no zone (UTC assumed).
func parseZone(z string) (*time.Location, bool, bool) {
	if len(z) > 0 && z[0] == ' ' {
		z = z[1:]
		if z == "" {
			return nil, false, false
		}
	}
	switch {
	case z == "":
		return time.UTC, false, true
	case z == "Z" || z == "UTC":
		return time.UTC, true, true
	case len(z) == 6 && z[3] == ':':
		z = z[:3] + z[4:]
	}
	if len(z) != 5 || (z[0] != '+' && z[0] != '-') {
		return nil, false, false
	}
	h, ok1 := digits(z[1:3])
	m, ok2 := digits(z[3:5])
	if !ok1 || !ok2 || h > 14 || m > 59 {
		return nil, false, false
	}
	off := (h*60 + m) * 60
	if z[0] == '-' {
		off = -off
	}
	return time.FixedZone("", off), true, true
}

// parseEpoch reads seconds since 1970, or milli-, micro- or nanoseconds,
// told apart by size: any time from 1980 on is above 3e8 s, and the next
// unit down would put it beyond the year 2200.
func parseEpoch(s string) (time.Time, bool) {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return time.Time{}, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return time.Time{}, false
	}
	switch {
	case v >= 1e17:
		v /= 1e9
	case v >= 1e14:
		v /= 1e6
	case v >= 1e11:
		v /= 1e3
	}
	if v >= float64(maxTime.Unix()) {
		return time.Time{}, false
	}
	sec := math.Floor(v)
	return time.Unix(int64(sec), int64((v-sec)*1e9)).UTC(), true
}

// parseClock reads a time of day "hh:mm:ss" (dmon -o T) as its offset from
// midnight.
func parseClock(s string) (time.Duration, error) {
	if len(s) != 8 || s[2] != ':' || s[5] != ':' {
		return 0, fmt.Errorf("time %q: want hh:mm:ss", s)
	}
	h, ok1 := digits(s[0:2])
	m, ok2 := digits(s[3:5])
	sec, ok3 := digits(s[6:8])
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || sec > 60 {
		return 0, fmt.Errorf("time %q: want hh:mm:ss", s)
	}
	return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec)*time.Second, nil
}

// parseDate reads dmon's "YYYYMMDD" date as UTC midnight.
func parseDate(s string) (time.Time, error) {
	if len(s) != 8 {
		return time.Time{}, fmt.Errorf("date %q: want YYYYMMDD", s)
	}
	y, ok1 := digits(s[0:4])
	m, ok2 := digits(s[4:6])
	d, ok3 := digits(s[6:8])
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || t.Day() != d {
		return time.Time{}, fmt.Errorf("date %q: want YYYYMMDD", s)
	}
	t, _, err := checkRange(s, t, false)
	return t, err
}

// digits reads a short run of ASCII digits.
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, len(s) > 0
}
