package analysis

import "strings"

// This file holds the date and time masks of Normalize.

// timestampLen matches dates with optional times ("2024-07-08T16:48:09.37Z",
// "2026-10-29T15_41_37_264Z", "2019-08-02 07:27:52") and clock times
// ("07:27:52.123").
func timestampLen(s string) int {
	j := 0
	if len(s) >= 10 && allDigits(s[0:4]) && s[4] == '-' && allDigits(s[5:7]) && s[7] == '-' && allDigits(s[8:10]) {
		j = 10
		if len(s) > j+1 && (s[j] == 'T' || s[j] == ' ' || s[j] == '_') {
			if k := clockLen(s[j+1:]); k > 0 {
				j += 1 + k
			}
		}
	} else if k := clockLen(s); k > 0 && strings.Count(s[:k], ":")+strings.Count(s[:k], "_") >= 2 {
		j = k
	} else {
		return 0
	}
	if j < len(s) && s[j] == 'Z' {
		j++
	} else if j+5 < len(s) && (s[j] == '+' || s[j] == '-') && allDigits(s[j+1:j+3]) && j > 10 {
		j += 3
		if s[j] == ':' {
			j++
		}
		for j < len(s) && isDigit(s[j]) {
			j++
		}
	}
	if j < len(s) && isAlnum(s[j]) {
		return 0
	}
	return j
}

// clockLen matches "hh:mm", "hh:mm:ss" or "hh:mm:ss.fff" (also with '_').
func clockLen(s string) int {
	if len(s) >= 4 && isDigit(s[0]) && s[1] == ':' {
		if k := clockLen("0" + s); k > 0 {
			return k - 1 // "7:27:52"
		}
		return 0
	}
	if len(s) < 5 || !allDigits(s[0:2]) || (s[2] != ':' && s[2] != '_') || !allDigits(s[3:5]) {
		return 0
	}
	j := 5
	if len(s) >= 8 && s[5] == s[2] && allDigits(s[6:8]) {
		j = 8
		if len(s) > 9 && (s[8] == '.' || s[8] == ',' || s[8] == '_') && isDigit(s[9]) {
			j = 9
			for j < len(s) && isDigit(s[j]) {
				j++
			}
		}
	}
	return j
}

func allDigits(s string) bool {
	for k := 0; k < len(s); k++ {
		if !isDigit(s[k]) {
			return false
		}
	}
	return len(s) > 0
}

var (
	weekdays = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}
	months   = []string{"January", "February", "March", "April", "June", "July", "August", "September", "October", "November", "December", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
)

// wordPrefix returns the length of the first word of ws that starts s and is
// followed by a blank.
func wordPrefix(s string, ws []string) int {
	for _, w := range ws {
		if strings.HasPrefix(s, w) && len(s) > len(w) && s[len(w)] == ' ' {
			return len(w)
		}
	}
	return 0
}

// wordDateLen matches dates written with words: "Sun Jul 10 03:55:21 2005",
// "Aug 2, 2019 7:27:52 AM", "Jul 10 2005". A month and a day plus a time or
// a year are required.
func wordDateLen(s string) int {
	j := 0
	if n := wordPrefix(s, weekdays); n > 0 {
		j = n + 1
		for j < len(s) && s[j] == ' ' {
			j++
		}
	}
	n := wordPrefix(s[j:], months)
	if n == 0 {
		return 0
	}
	j += n + 1
	for j < len(s) && s[j] == ' ' {
		j++
	}
	d := 0
	for j+d < len(s) && isDigit(s[j+d]) && d < 2 {
		d++
	}
	if d == 0 || (j+d < len(s) && isAlnum(s[j+d])) {
		return 0
	}
	j += d
	if j < len(s) && s[j] == ',' {
		j++
	}
	more := false
	for {
		k := j
		for k < len(s) && s[k] == ' ' {
			k++
		}
		if k == j || k >= len(s) {
			break
		}
		if c := clockLen(s[k:]); c > 0 {
			j, more = k+c, true
			if strings.HasPrefix(s[j:], " AM") || strings.HasPrefix(s[j:], " PM") {
				j += 3
			}
			continue
		}
		if k+4 <= len(s) && allDigits(s[k:k+4]) && (k+4 == len(s) || !isAlnum(s[k+4])) {
			j, more = k+4, true
			continue
		}
		break
	}
	if !more {
		return 0
	}
	return j
}
