package progress

import "math"

// MaxValue bounds every count, total and rate a line may give: a job that
// prints a larger number is not counting its work (or is hostile), and a
// reading with one is dropped.
const MaxValue = 1e15

// pow10 are the powers of ten a decimal number's scale takes, for
// parseNumber.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseNumber reads a plain decimal number at the start of b (digits, an
// optional fraction, an optional exponent): "50.00", "4.5e-05", "1200". It
// returns the value and the bytes it took, 0 if b does not start with a
// digit. By hand, since strconv.ParseFloat allocates for a []byte and this
// runs for every line; within an ulp or two of ParseFloat, which is far
// closer than a progress rate needs.
func parseNumber(b []byte) (float64, int) {
	i := 0
	var mant uint64
	digits, scale := 0, 0
	for ; i < len(b) && isDigit(b[i]); i++ {
		if digits < 19 {
			mant = mant*10 + uint64(b[i]-'0')
			digits++
		} else {
			scale++ // digits past 19 only scale
		}
	}
	if i == 0 {
		return 0, 0
	}
	if i+1 < len(b) && b[i] == '.' && isDigit(b[i+1]) {
		for i++; i < len(b) && isDigit(b[i]); i++ {
			if digits < 19 {
				mant = mant*10 + uint64(b[i]-'0')
				digits++
				scale--
			}
		}
	}
	if i+1 < len(b) && (b[i] == 'e' || b[i] == 'E') {
		j, neg := i+1, false
		if j < len(b) && (b[j] == '-' || b[j] == '+') {
			neg = b[j] == '-'
			j++
		}
		if j < len(b) && isDigit(b[j]) {
			exp := 0
			for ; j < len(b) && isDigit(b[j]); j++ {
				if exp < 1000 {
					exp = exp*10 + int(b[j]-'0')
				}
			}
			if neg {
				exp = -exp
			}
			scale += exp
			i = j
		}
	}
	v := float64(mant)
	switch {
	case scale > 0 && scale < len(pow10):
		v *= pow10[scale]
	case scale < 0 && -scale < len(pow10):
		v /= pow10[-scale]
	case scale != 0:
		v *= math.Pow(10, float64(scale))
	}
	return v, i
}

// numberBefore reads the number that ends just before b[end]: the digits,
// point and (for "1,234") thousands commas that precede it. It returns the
// value and where the number starts, or ok false.
func numberBefore(b []byte, end int) (v float64, start int, ok bool) {
	start = end
	for start > 0 && (isDigit(b[start-1]) || b[start-1] == '.' ||
		b[start-1] == ',' && start+3 <= end && isDigit(b[start]) && start >= 2 && isDigit(b[start-2])) {
		start--
	}
	for start < end && !isDigit(b[start]) { // a leading point or comma is not the number's
		start++
	}
	if start == end {
		return 0, end, false
	}
	if start > 0 && (isLetter(b[start-1]) || b[start-1] == '+' || b[start-1] == '-') {
		return 0, end, false // the end of a word or of an exponent ("1e+400"), not a number
	}
	v, n := parseGrouped(b[start:end])
	return v, start, n == end-start
}

// parseGrouped is parseNumber that also takes thousands commas
// ("1,234.5"): a comma between a digit and exactly three more.
func parseGrouped(b []byte) (float64, int) {
	if !hasByte(b, ',') {
		return parseNumber(b)
	}
	var buf [32]byte
	j, n := 0, 0
	for ; n < len(b) && j < len(buf); n++ {
		c := b[n]
		if isDigit(c) || c == '.' {
			buf[j] = c
			j++
			continue
		}
		if c == ',' && n > 0 && isDigit(b[n-1]) && n+3 < len(b)+0 && isDigit(b[n+1]) && isDigit(b[n+2]) &&
			isDigit(b[n+3]) && (n+4 == len(b) || !isDigit(b[n+4])) {
			continue
		}
		break
	}
	v, took := parseNumber(buf[:j])
	if took != j {
		return 0, 0
	}
	return v, n
}

func hasByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// valid says whether v is a number a reading may carry.
func valid(v float64) bool { return v >= 0 && v <= MaxValue } // false for NaN and ±Inf too
