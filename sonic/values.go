package sonic

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// noValue marks an error about a missing field: no "(got ...)" suffix.
var noValue any = struct{}{}

// entryErr is the one error form of validation:
//
//	TABLE|key: field: what is wrong (got "value")
//
// field "" leaves the field out (an error about the whole entry); got
// noValue leaves the "(got ...)" out.
func entryErr(table, key, field string, got any, format string, a ...any) error {
	var b strings.Builder
	b.WriteString(quoteIfOdd(table + "|" + key))
	if field != "" {
		b.WriteString(": ")
		b.WriteString(quoteIfOdd(field))
	}
	b.WriteString(": ")
	b.WriteString(fmt.Sprintf(format, a...))
	if got != noValue {
		b.WriteString(" (got ")
		b.WriteString(show(got))
		b.WriteString(")")
	}
	return errors.New(oneLine(b.String()))
}

// show renders a field value for an error: a quoted string, or a list as
// JSON.
func show(v any) string {
	switch t := v.(type) {
	case string:
		return strconv.Quote(t)
	case nil:
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return strconv.Quote(fmt.Sprint(v))
	}
	return string(b)
}

// quoteIfOdd quotes a name that holds control characters or spaces at its
// ends, so that it can be seen (and the message stays on one line).
func quoteIfOdd(s string) string {
	if s == "" || strings.TrimSpace(s) != s || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

// oneLine escapes any control character left in a message.
func oneLine(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// sortedKeys returns a map's keys in order: validation visits tables, keys
// and fields in this order so that the first error is always the same.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// scalar is a string field value; lists are refused.
func scalar(table, key, field string, v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", entryErr(table, key, field, v, "must be a string")
	}
	return s, nil
}

// list is a list field value: a JSON list of strings, or one string of
// comma-separated items (how redis stores "field@" lists). Items are
// trimmed; empty items are dropped.
func list(table, key, field string, v any) ([]string, error) {
	var items []string
	switch t := v.(type) {
	case string:
		items = strings.Split(t, ",")
	case []string:
		items = t
	case []any:
		for _, e := range t {
			s, ok := e.(string)
			if !ok {
				return nil, entryErr(table, key, field, v, "must be a list of strings")
			}
			items = append(items, s)
		}
	default:
		return nil, entryErr(table, key, field, v, "must be a list of strings or a comma-separated string")
	}
	out := make([]string, 0, len(items))
	for _, s := range items {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// parseUint is a YANG unsigned integer of the given bit size: decimal
// digits only (no sign, no fraction, no exponent).
func parseUint(s string, bits int) (uint64, bool) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, bits)
	return n, err == nil
}

// parseInt is a decimal integer with an optional minus sign.
func parseInt(s string) (int64, bool) {
	digits := strings.TrimPrefix(s, "-")
	if _, ok := parseUint(digits, 64); !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// inRange is an integer lo..hi given as decimal digits.
func inRange(s string, lo, hi int) (int, bool) {
	n, ok := parseInt(s)
	if !ok || n < int64(lo) || n > int64(hi) {
		return 0, false
	}
	return int(n), true
}

// parseRate is a non-negative decimal number ("1", "12.5"), as SCHEDULER
// pir/cir are written.
func parseRate(s string) (float64, bool) {
	whole, frac, hasFrac := strings.Cut(s, ".")
	if _, ok := parseUint(whole, 64); !ok {
		return 0, false
	}
	if hasFrac && (frac == "" || strings.TrimLeft(frac, "0123456789") != "") {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// refName strips the old "[TABLE|name]" reference form (SONiC before 2021)
// down to the name; other values are returned unchanged.
func refName(table, v string) string {
	if inner, ok := strings.CutPrefix(v, "["+table+"|"); ok {
		if name, ok := strings.CutSuffix(inner, "]"); ok {
			return name
		}
	}
	return v
}

// indexRange parses a queue or priority-group index "3" or range "0-2"
// whose indexes must be below limit.
func indexRange(s string, limit int) (lo, hi int, ok bool) {
	a, b, isRange := strings.Cut(s, "-")
	if !isRange {
		b = a
	}
	lo, okLo := inRange(a, 0, limit-1)
	hi, okHi := inRange(b, 0, limit-1)
	if !okLo || !okHi || lo > hi || strings.HasPrefix(a, "-") || strings.HasPrefix(b, "-") {
		return 0, 0, false
	}
	return lo, hi, true
}

// checkFields refuses fields a supported table does not define. allowed
// lists every field the table accepts (used or ignored).
func checkFields(table, key string, fields map[string]any, allowed ...string) error {
	for _, f := range sortedKeys(fields) {
		if slices.Contains(allowed, f) {
			continue
		}
		if len(allowed) == 0 {
			return entryErr(table, key, f, fields[f], "unknown field: %s entries have no fields", table)
		}
		if len(allowed) > 8 {
			return entryErr(table, key, f, fields[f], "unknown field")
		}
		return entryErr(table, key, f, fields[f], "unknown field (%s has %s)", table, strings.Join(allowed, ", "))
	}
	return nil
}
