package analysis

import (
	"bytes"
	"time"
)

// utf8BOM is the byte-order mark the first line of a GitHub job log may carry.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// parseTimestamp reads a leading UTC timestamp of the form
// 2024-07-08T16:48:09.3750041Z (0 to 9 fractional digits) followed by one space
// or the end of the line. It returns the time and the number of bytes consumed,
// including the separating space, or ok=false when b does not start with one.
// It is hand-written because it runs once per line.
func parseTimestamp(b []byte) (t time.Time, n int, ok bool) {
	if len(b) < 20 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return time.Time{}, 0, false
	}
	year, ok1 := digits(b[0:4])
	month, ok2 := digits(b[5:7])
	day, ok3 := digits(b[8:10])
	hour, ok4 := digits(b[11:13])
	minute, ok5 := digits(b[14:16])
	sec, ok6 := digits(b[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || sec > 60 {
		return time.Time{}, 0, false
	}
	i := 19
	nanos := 0
	if b[i] == '.' {
		i++
		scale := 100000000
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' && i-start < 9 {
			nanos += int(b[i]-'0') * scale
			scale /= 10
			i++
		}
		if i == start {
			return time.Time{}, 0, false
		}
	}
	if i >= len(b) || b[i] != 'Z' {
		return time.Time{}, 0, false
	}
	i++
	if i < len(b) {
		if b[i] != ' ' {
			return time.Time{}, 0, false
		}
		i++
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nanos, time.UTC), i, true
}

// digits parses a short run of ASCII digits.
func digits(b []byte) (int, bool) {
	v := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

// stripANSI appends src to dst without ANSI escape sequences (CSI, OSC and
// two-byte escapes) and returns the extended slice.
func stripANSI(dst, src []byte) []byte {
	for {
		i := bytes.IndexByte(src, 0x1b)
		if i < 0 {
			return append(dst, src...)
		}
		dst = append(dst, src[:i]...)
		src = src[i+1:]
		if len(src) == 0 {
			return dst
		}
		switch src[0] {
		case '[': // CSI: parameters and intermediates, then one final byte 0x40-0x7E
			j := 1
			for j < len(src) && (src[j] < 0x40 || src[j] > 0x7e) {
				j++
			}
			if j < len(src) {
				j++
			}
			src = src[j:]
		case ']': // OSC: ends with BEL or ESC \
			j := 1
			for j < len(src) && src[j] != 0x07 && src[j] != 0x1b {
				j++
			}
			if j < len(src) && src[j] == 0x1b && j+1 < len(src) && src[j+1] == '\\' {
				j++
			}
			if j < len(src) {
				j++
			}
			src = src[j:]
		case '(', ')', '*', '+', '#', '%': // charset designation and similar: one more byte
			src = src[min(2, len(src)):]
		default:
			src = src[1:]
		}
	}
}

// lastVisibleSegment returns what a terminal would show for a line holding
// bare carriage returns: the last segment that has visible text once ANSI
// sequences are removed. It returns b when b holds no '\r'.
func lastVisibleSegment(b []byte) []byte {
	if bytes.IndexByte(b, '\r') < 0 {
		return b
	}
	var scratch [256]byte
	rest := b
	for len(rest) > 0 {
		i := bytes.LastIndexByte(rest, '\r')
		seg := rest[i+1:]
		if hasVisible(stripANSI(scratch[:0], seg)) {
			return seg
		}
		if i < 0 {
			break
		}
		rest = rest[:i]
	}
	return b[:0]
}

// hasVisible reports whether b holds a byte other than blanks and control characters.
func hasVisible(b []byte) bool {
	for _, c := range b {
		if c > ' ' && c != 0x7f {
			return true
		}
	}
	return false
}

// hasTimestampAt reports whether a GitHub timestamp starts at b[i:].
func hasTimestampAt(b []byte, i int) bool {
	if i < 0 || i > len(b) {
		return false
	}
	_, _, ok := parseTimestamp(b[i:])
	return ok
}

// skipTravisMarkers drops the fold and timing markers that Travis CI prints
// in front of a line ("travis_fold:start:x\x1b[0K", "travis_time:end:…\x1b[0K"),
// so that the command echo or exit line after them reads as itself. A
// marker that ends the line is kept.
func skipTravisMarkers(b []byte) []byte {
	for len(b) > 0 && b[0] == 't' && (bytes.HasPrefix(b, []byte("travis_fold:")) || bytes.HasPrefix(b, []byte("travis_time:"))) {
		i := bytes.Index(b, []byte("\x1b[0K"))
		if i < 0 || i+4 == len(b) {
			return b
		}
		b = b[i+4:]
	}
	return b
}
