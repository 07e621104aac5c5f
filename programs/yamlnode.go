package programs

import (
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// node wraps a YAML node with the file name and the path used in errors.
type node struct {
	n    *yaml.Node
	file string
	what string
	// item, when above 0, is one more than the node's index in the list
	// what names: its path is what[item-1]. Made only for an error (a
	// program's lists can hold thousands of values: Trio-ML's traffic
	// lists every block number).
	item int
}

// path is the node's place in the program, for errors ("tables t
// entries[3]").
func (n node) path() string {
	if n.item > 0 {
		return n.what + "[" + strconv.Itoa(n.item-1) + "]"
	}
	return n.what
}

func (n node) pos() Pos { return Pos{File: n.file, Line: n.n.Line} }

func (n node) errf(format string, args ...any) *Error {
	return errorf(n.pos(), n.path(), format, args...)
}

// pair is one key/value of a YAML mapping, in file order.
type pair struct {
	key  string
	val  node
	line int // the key's line
}

func (n node) isMap() bool    { return n.n.Kind == yaml.MappingNode }
func (n node) isSeq() bool    { return n.n.Kind == yaml.SequenceNode }
func (n node) isScalar() bool { return n.n.Kind == yaml.ScalarNode }

// pairs returns the mapping's entries in file order; duplicate keys are an
// error.
func (n node) pairs() ([]pair, error) {
	if n.n.Kind == yaml.ScalarNode && n.n.Tag == "!!null" {
		return nil, nil
	}
	if !n.isMap() {
		return nil, n.errf("expected a mapping (key: value lines)")
	}
	var out []pair // nil for an empty mapping, as callers test (for: {})
	if len(n.n.Content) > 0 {
		out = make([]pair, 0, len(n.n.Content)/2)
	}
	// Duplicates: a scan of the keys so far for a short mapping (most
	// are: a table entry, a header's fields), a set for a long one.
	var seen map[string]bool
	if len(n.n.Content) > 32 {
		seen = make(map[string]bool, len(n.n.Content)/2)
	}
	for i := 0; i+1 < len(n.n.Content); i += 2 {
		k := n.n.Content[i]
		if k.Kind != yaml.ScalarNode {
			return nil, errorf(Pos{n.file, k.Line}, n.path(), "keys must be plain names")
		}
		dup := seen[k.Value]
		if seen == nil {
			for _, p := range out {
				dup = dup || p.key == k.Value
			}
		}
		if dup {
			return nil, errorf(Pos{n.file, k.Line}, n.path(), "duplicate key %q", k.Value)
		}
		if seen != nil {
			seen[k.Value] = true
		}
		what := k.Value
		if p := n.path(); p != "" {
			what = p + " " + k.Value
		}
		out = append(out, pair{key: k.Value, val: node{n: n.n.Content[i+1], file: n.file, what: what}, line: k.Line})
	}
	return out, nil
}

// fields decodes a mapping whose keys must come from allowed.
func (n node) fields(allowed ...string) (map[string]node, error) {
	ps, err := n.pairs()
	if err != nil {
		return nil, err
	}
	out := make(map[string]node, len(ps))
	for _, p := range ps {
		ok := false
		for _, a := range allowed {
			if a == p.key {
				ok = true
				break
			}
		}
		if !ok {
			return nil, errorf(Pos{n.file, p.val.n.Line}, n.path(), "unknown key %q (allowed: %s)",
				p.key, strings.Join(allowed, ", "))
		}
		out[p.key] = p.val
	}
	return out, nil
}

func (n node) items() ([]node, error) {
	if n.n.Kind == yaml.ScalarNode && n.n.Tag == "!!null" {
		return nil, nil
	}
	if !n.isSeq() {
		return nil, n.errf("expected a list")
	}
	out := make([]node, len(n.n.Content))
	for i, c := range n.n.Content {
		out[i] = node{n: c, file: n.file, what: n.path(), item: i + 1}
	}
	return out, nil
}

func (n node) str() (string, error) {
	if !n.isScalar() {
		return "", n.errf("expected a single value")
	}
	return n.n.Value, nil
}

// codeLine returns the file line of the first line of a code scalar: block
// scalars (|) start on the line after the key.
func (n node) codeLine() int {
	if n.n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return n.n.Line + 1
	}
	return n.n.Line
}

// parseIntLiteral parses decimal, hex (0x), octal (0o) or binary (0b)
// integers, with optional underscores.
func parseIntLiteral(s string) (int64, bool) {
	s = strings.ReplaceAll(strings.TrimSpace(s), "_", "")
	neg := false
	if strings.HasPrefix(s, "-") {
		neg = true
		s = s[1:]
	}
	if s == "" || s[0] < '0' || s[0] > '9' {
		return 0, false // a name or an expression (no error value made)
	}
	u, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		return 0, false
	}
	if neg {
		return -int64(u), true
	}
	return int64(u), true
}

// parseAddress parses dotted IPv4 ("10.0.0.1") and colon MAC
// ("00:11:22:33:44:55") literals.
func parseAddress(s string) (int64, bool) {
	if strings.Count(s, ".") == 3 {
		var v int64
		for _, part := range strings.Split(s, ".") {
			b, err := strconv.ParseUint(part, 10, 8)
			if err != nil {
				return 0, false
			}
			v = v<<8 | int64(b)
		}
		return v, true
	}
	if strings.Count(s, ":") == 5 {
		var v int64
		for _, part := range strings.Split(s, ":") {
			b, err := strconv.ParseUint(part, 16, 8)
			if err != nil {
				return 0, false
			}
			v = v<<8 | int64(b)
		}
		return v, true
	}
	return 0, false
}

// boolean reads a true/false setting (YAML's spellings of them); anything
// else is an error, not false.
func (n node) boolean(name string) (bool, error) {
	switch n.n.Value {
	case "true", "True", "TRUE":
		return true, nil
	case "false", "False", "FALSE":
		return false, nil
	}
	return false, n.errf("%s is true or false, got %q", name, n.n.Value)
}
