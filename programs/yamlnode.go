package programs

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// node wraps a YAML node with the file name and the path used in errors.
type node struct {
	n    *yaml.Node
	file string
	what string
}

func (n node) pos() Pos { return Pos{File: n.file, Line: n.n.Line} }

func (n node) errf(format string, args ...any) *Error {
	return errorf(n.pos(), n.what, format, args...)
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
	var out []pair
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.n.Content); i += 2 {
		k := n.n.Content[i]
		if k.Kind != yaml.ScalarNode {
			return nil, errorf(Pos{n.file, k.Line}, n.what, "keys must be plain names")
		}
		if seen[k.Value] {
			return nil, errorf(Pos{n.file, k.Line}, n.what, "duplicate key %q", k.Value)
		}
		seen[k.Value] = true
		what := k.Value
		if n.what != "" {
			what = n.what + " " + k.Value
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
	out := map[string]node{}
	for _, p := range ps {
		ok := false
		for _, a := range allowed {
			if a == p.key {
				ok = true
				break
			}
		}
		if !ok {
			return nil, errorf(Pos{n.file, p.val.n.Line}, n.what, "unknown key %q (allowed: %s)",
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
		out[i] = node{n: c, file: n.file, what: fmt.Sprintf("%s[%d]", n.what, i)}
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
