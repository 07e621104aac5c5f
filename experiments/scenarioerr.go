package experiments

import (
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"archsim/configs"
)

// A scenario's errors read FILE:LINE: field: what is wrong (allowed: ...),
// with the field as a path into the YAML (variants[1].chip). yamlIndex
// finds the line of a path, and of the node a decoder message names.

// yamlSpot is one key or scalar value of a document, with its path.
type yamlSpot struct {
	path  string
	value string
	line  int
	key   bool
}

// yamlIndex maps paths to lines for one YAML document.
type yamlIndex struct {
	file  string
	lines map[string]int
	spots []yamlSpot
	colls map[string]int // mappings and lists: path -> line where they start
	root  *yaml.Node     // the document's top node
}

// newYAMLIndex reads a document's nodes; a syntax error is returned as
// FILE:LINE: not valid YAML: ....
func newYAMLIndex(file string, data []byte) (*yamlIndex, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: not valid YAML: %s", atLine(file, err.Error()), stripLine(err.Error()))
	}
	ix := &yamlIndex{file: file, lines: map[string]int{}, colls: map[string]int{}}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	ix.root = root
	ix.lines[""] = root.Line
	ix.walk("", root)
	return ix, nil
}

func (ix *yamlIndex) walk(path string, n *yaml.Node) {
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		ix.colls[path] = n.Line
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := k.Value
			if path != "" {
				p = path + "." + k.Value
			}
			if _, ok := ix.lines[p]; !ok {
				ix.lines[p] = k.Line
			}
			ix.spots = append(ix.spots, yamlSpot{path: p, value: k.Value, line: k.Line, key: true})
			ix.walk(p, v)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			ix.lines[p] = c.Line
			ix.walk(p, c)
		}
	case yaml.ScalarNode:
		ix.spots = append(ix.spots, yamlSpot{path: path, value: n.Value, line: n.Line})
	}
}

// at is FILE:LINE of a path: its own line, else its nearest parent's (a
// missing key is reported where its mapping starts).
func (ix *yamlIndex) at(path string) string {
	for p := path; ; {
		if l, ok := ix.lines[p]; ok && l > 0 {
			return fmt.Sprintf("%s:%d", ix.file, l)
		}
		if p == "" {
			return ix.file
		}
		p = parentPath(p)
	}
}

// has reports whether the document gives a path.
func (ix *yamlIndex) has(path string) bool {
	if ix == nil {
		return false
	}
	_, ok := ix.lines[path]
	return ok
}

// parentPath drops a path's last element: a.b[2].c -> a.b[2] -> a.b -> a.
func parentPath(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i < 0 {
		return ""
	}
	return p[:i]
}

// spot finds the key (or value) written at a line.
func (ix *yamlIndex) spot(line int, value string, key bool) (yamlSpot, bool) {
	// The decoder cuts long values it quotes to 7 characters and "...".
	cut, truncated := strings.CutSuffix(value, "...")
	for _, s := range ix.spots {
		if s.line == line && s.key == key && (s.value == value || (truncated && strings.HasPrefix(s.value, cut))) {
			return s, true
		}
	}
	return yamlSpot{}, false
}

// collection finds the path of a mapping or list that starts at a line
// (a decoder names no value for them): the innermost, when several do.
func (ix *yamlIndex) collection(line int) (string, bool) {
	best, found := "", false
	for p, l := range ix.colls {
		if l == line && (!found || len(p) > len(best) || (len(p) == len(best) && p < best)) {
			best, found = p, true
		}
	}
	return best, found
}

// fieldError is a validation error about one field of the scenario.
type fieldError struct {
	path string
	msg  string
}

func (e *fieldError) Error() string { return e.path + ": " + e.msg }

// fieldErr makes a fieldError: path names the field (variants[0].chip).
func fieldErr(path, format string, args ...any) error {
	return &fieldError{path: path, msg: fmt.Sprintf(format, args...)}
}

// locate puts FILE:LINE in front of a validation error.
func (ix *yamlIndex) locate(err error) error {
	if ix == nil {
		return err
	}
	var fe *fieldError
	if errors.As(err, &fe) {
		return fmt.Errorf("%s: %s: %s", ix.at(fe.path), fe.path, fe.msg)
	}
	// Older messages start with their path (topology.links[2]: ...).
	msg := err.Error()
	if i := strings.Index(msg, ":"); i > 0 {
		path, _, _ := strings.Cut(msg[:i], " ") // topology.switches[1] (b): ...
		if path != "" && !strings.ContainsAny(path, "\"'") && (ix.has(path) || ix.has(parentPath(path))) {
			return fmt.Errorf("%s: %s", ix.at(path), msg)
		}
	}
	return fmt.Errorf("%s: %s", ix.file, msg)
}

var (
	reUnknownField = regexp.MustCompile(`^line (\d+): field (\S+) not found in type (\S+)$`)
	reCannot       = regexp.MustCompile("^line (\\d+): cannot unmarshal !!(\\w+) (?:`(.*)` )?into (\\S+)$")
	reDuplicate    = regexp.MustCompile(`^line (\d+): mapping key "(.*)" already defined at line (\d+)$`)
	reLine         = regexp.MustCompile(`line (\d+)`)
)

// decodeError turns a yaml.v3 decoder error into FILE:LINE: field: what
// (allowed: ...), without Go type names; only the first problem is kept.
func (ix *yamlIndex) decodeError(err error, root reflect.Type) error {
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: empty (allowed: %s)", ix.file, strings.Join(yamlFields(root, ""), ", "))
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n")
	msg = strings.TrimSpace(oneLineOf(msg))
	if m := reUnknownField.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		path := m[2]
		if s, ok := ix.spot(line, m[2], true); ok {
			path = s.path
		}
		allowed := yamlFields(root, parentPath(path))
		return fmt.Errorf("%s:%d: %s: unknown field (allowed: %s)", ix.file, line, path, strings.Join(allowed, ", "))
	}
	if m := reCannot.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		path := "" // the document itself (a file that is not a mapping)
		if s, ok := ix.spot(line, m[3], false); ok && m[3] != "" {
			path = s.path
			m[3] = s.value // whole, where the decoder cut it
		} else if p, ok := ix.collection(line); ok {
			path = p
		}
		got := map[string]string{"str": "the text", "int": "the integer", "float": "the number", "bool": "the bool", "map": "a mapping", "seq": "a list", "null": "nothing"}[m[2]]
		if got == "" {
			got = "a " + m[2]
		}
		if m[3] != "" && m[2] != "map" && m[2] != "seq" {
			got += " " + strconv.Quote(m[3])
			if (m[2] == "int" || m[2] == "float") && goTypeWord(m[4]) == "an integer" {
				got += " (out of the integer's range)"
			}
		}
		if path == "" {
			return fmt.Errorf("%s:%d: expected %s of the fields %s, got %s", ix.file, line, goTypeWord(m[4]), strings.Join(yamlFields(root, ""), ", "), got)
		}
		return fmt.Errorf("%s:%d: %s: expected %s, got %s", ix.file, line, path, goTypeWord(m[4]), got)
	}
	if m := reDuplicate.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s:%s: %s: given twice (first at line %s)", ix.file, m[1], m[2], m[3])
	}
	return fmt.Errorf("%s: %s", atLine(ix.file, msg), stripLine(msg))
}

// goTypeWord names a Go type the way a YAML author knows it.
func goTypeWord(t string) string {
	switch {
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint"):
		return "an integer"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "string":
		return "a text"
	case t == "bool":
		return "true or false"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["):
		return "a mapping"
	}
	return "a mapping"
}

// atLine is FILE:LINE when a message names a line, else FILE.
func atLine(file, msg string) string {
	if m := reLine.FindStringSubmatch(msg); m != nil {
		return file + ":" + m[1]
	}
	return file
}

// stripLine drops "yaml: " and "line N: " from a decoder message.
func stripLine(msg string) string {
	msg = strings.TrimPrefix(oneLineOf(msg), "yaml: ")
	if m := reLine.FindStringIndex(msg); m != nil && m[0] == 0 {
		msg = strings.TrimPrefix(strings.TrimSpace(msg[m[1]:]), ": ")
	}
	return msg
}

func oneLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// yamlFields lists the YAML keys of the struct at a path below root
// (variants[0] -> Variant's keys), sorted.
func yamlFields(root reflect.Type, path string) []string {
	t := root
	if path != "" {
		for _, part := range strings.Split(path, ".") {
			name, _, _ := strings.Cut(part, "[")
			t = deref(t)
			if t.Kind() == reflect.Map {
				t = t.Elem()
				continue
			}
			if t.Kind() != reflect.Struct {
				return nil
			}
			found := false
			for i := 0; i < t.NumField(); i++ {
				f := t.Field(i)
				if tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); tag == name {
					t, found = f.Type, true
					break
				}
			}
			if !found {
				return nil
			}
			for strings.Contains(part, "[") {
				t = deref(t)
				if t.Kind() == reflect.Slice {
					t = t.Elem()
				}
				part = part[strings.Index(part, "[")+1:]
			}
		}
	}
	t = deref(t)
	if t.Kind() == reflect.Slice {
		t = deref(t.Elem())
	}
	if t.Kind() == reflect.Map {
		t = deref(t.Elem())
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); tag != "" && tag != "-" {
			out = append(out, tag)
		}
	}
	sort.Strings(out)
	return out
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// checkNumbers finds, in a document decoded into a value of type t, the
// numbers yaml.v3 lets through: a decimal given for an integer field,
// which it truncates (hosts: 4.5 becomes 4), and NaN or an infinity given
// for a number, which would pass every range check (they compare, and NaN
// compares false). A whole decimal (3.0) is the integer 3, as in the chip
// configs. path is n's path (as yamlIndex's).
func checkNumbers(n *yaml.Node, t reflect.Type, path string) error {
	t = deref(t)
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if err := checkNumbers(c, t, path); err != nil {
				return err
			}
		}
	case yaml.AliasNode:
		if n.Alias != nil {
			return checkNumbers(n.Alias, t, path)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := k.Value
			if path != "" {
				p = path + "." + k.Value
			}
			var vt reflect.Type
			switch t.Kind() {
			case reflect.Map:
				vt = t.Elem()
			case reflect.Struct:
				for j := 0; j < t.NumField(); j++ {
					if tag, _, _ := strings.Cut(t.Field(j).Tag.Get("yaml"), ","); tag == k.Value {
						vt = t.Field(j).Type
						break
					}
				}
			}
			if vt == nil {
				continue // an unknown key is the decoder's error
			}
			if err := checkNumbers(v, vt, p); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return nil
		}
		for i, c := range n.Content {
			if err := checkNumbers(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case yaml.ScalarNode:
		if n.ShortTag() != "!!float" {
			return nil
		}
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil
		}
		switch {
		case configs.IsInt(t.Kind()) && f != math.Trunc(f):
			return fieldErr(path, "got %s (allowed: an integer)", n.Value)
		case (configs.IsInt(t.Kind()) || t.Kind() == reflect.Float64 || t.Kind() == reflect.Float32) && (math.IsNaN(f) || math.IsInf(f, 0)):
			return fieldErr(path, "got %s (allowed: a finite number)", n.Value)
		}
	}
	return nil
}
