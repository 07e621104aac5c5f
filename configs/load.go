package configs

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/viper"
	yamlcodec "go.yaml.in/yaml/v3"
	"gopkg.in/yaml.v3"

	"archsim/internal/yamlfile"
)

// Source tells the loader where the chip description comes from and what
// overrides it. Precedence, lowest first: Base files, UserFile, Values,
// Sets.
type Source struct {
	Base     []string // embedded files merged in order, e.g. tofino.yaml, tofino2.yaml
	UserFile string   // --config file merged over them ("" = none)
	Values   []Value  // single values set by name (e.g. a chip's knobs, given as command-line shortcuts)
	Sets     []string // --set key=value overrides
}

// Value sets one config key, saying where the value came from (errors
// name it, e.g. "--stages").
type Value struct {
	Key    string
	Value  string
	Origin string
}

// Loaded is a merged configuration plus where each user-set key came from,
// so errors can name the file or flag.
type Loaded struct {
	V      *viper.Viper
	origin map[string]string
	user   map[string]bool // keys the user's file, knobs or --set gave
	base   string
}

// UserSet reports whether the user's file, a knob or a --set gave key, or
// a key under it (key "ideal.pie" covers ideal.pie.alpha).
func (l *Loaded) UserSet(key string) bool {
	key = strings.ToLower(key)
	for k := range l.user {
		if k == key || strings.HasPrefix(k, key+".") {
			return true
		}
	}
	return false
}

// Origin names where key's value came from.
func (l *Loaded) Origin(key string) string {
	if o, ok := l.origin[key]; ok {
		return o
	}
	return "configs/" + l.base
}

// Load merges the embedded base files, the user's file, the bound flags and
// the --set overrides. Unknown keys are errors.
func Load(src Source) (*Loaded, error) {
	v := viper.New()
	v.SetConfigType("yaml")
	l := &Loaded{V: v, origin: map[string]string{}, user: map[string]bool{}, base: src.Base[0]}
	for _, name := range src.Base {
		b, err := parsedBase(name)
		if err != nil {
			return nil, fmt.Errorf("configs/%s: %v", name, err)
		}
		// What viper's ReadConfig (the first file) and MergeConfig do
		// after decoding: merge the tree into its (empty, then partly
		// filled) config. Each Loaded gets its own copy, since merging
		// a later file writes into the tree's maps.
		if err := v.MergeConfigMap(copyTree(b.tree)); err != nil {
			return nil, fmt.Errorf("configs/%s: %v", name, err)
		}
		for k, at := range b.origin {
			l.origin[k] = at
		}
	}
	known := map[string]bool{}
	for _, k := range v.AllKeys() {
		known[k] = true
	}
	if src.UserFile != "" {
		data, err := os.ReadFile(src.UserFile)
		if err != nil {
			return nil, fmt.Errorf("%s: cannot read config: %v", src.UserFile, err)
		}
		keys, lines, err := yamlKeys(data)
		if err == nil {
			err = yamlfile.OneDocument(data, src.UserFile)
			if err != nil {
				return nil, err
			}
		}
		if err != nil {
			msg, syntax := strings.CutPrefix(oneLine(err.Error()), "yaml: ")
			what := ""
			if syntax {
				what = "not valid YAML: "
			}
			if n, rest, ok := strings.Cut(msg, ": "); ok && strings.HasPrefix(n, "line ") {
				// FILE:LINE: what, as every other input's errors.
				return nil, fmt.Errorf("%s:%s: %s%s", src.UserFile, strings.TrimPrefix(n, "line "), what, rest)
			}
			return nil, fmt.Errorf("%s: not valid YAML: %v", src.UserFile, msg)
		}
		for _, k := range keys {
			at := fmt.Sprintf("%s:%d", src.UserFile, lines[k])
			if !known[k] {
				return nil, fmt.Errorf("%s: %s: unknown config key (see configs/%s for the keys)", at, k, src.Base[0])
			}
			l.origin[k] = at
			l.user[k] = true
		}
		if err := v.MergeConfig(bytes.NewReader(data)); err != nil {
			return nil, fmt.Errorf("%s: %v", src.UserFile, err)
		}
	}
	for _, kv := range src.Values {
		k := strings.ToLower(kv.Key)
		if !known[k] {
			return nil, fmt.Errorf("%s: unknown config key %s (see configs/%s)", kv.Origin, k, src.Base[0])
		}
		v.Set(k, parseValue(kv.Value))
		l.origin[k] = kv.Origin
		l.user[k] = true
	}
	for _, s := range src.Sets {
		k, val, ok := strings.Cut(s, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if !ok || k == "" {
			return nil, fmt.Errorf("--set %q: expected key=value (e.g. tofino.mau.stages=10)", s)
		}
		if !known[k] {
			return nil, fmt.Errorf("--set %s: unknown config key (see configs/%s)", k, src.Base[0])
		}
		if v := strings.TrimSpace(val); yamlfile.LeadingZero(v) {
			return nil, fmt.Errorf("--set %s=%s: %s", k, v, yamlfile.LeadingZeroText(v, "YAML"))
		}
		v.Set(k, parseValue(val))
		l.origin[k] = "--set " + k + "=" + strings.TrimSpace(val)
		l.user[k] = true
	}
	return l, nil
}

// base is an embedded file, decoded: its tree as viper's YAML codec
// decodes it, and where each leaf key is set ("configs/tofino.yaml:12").
type base struct {
	tree   map[string]any
	origin map[string]string
}

// bases caches the decoded embedded files by name. They never change, and
// decoding tofino.yaml twice (for viper and for the keys' lines) was about
// 1 ms of every load of its chip, which a Tofino run does two or three
// times. Runs in parallel share it (a Loaded merges a copy).
var bases sync.Map // string -> *base

// parsedBase decodes an embedded file once.
func parsedBase(name string) (*base, error) {
	if b, ok := bases.Load(name); ok {
		return b.(*base), nil
	}
	data, err := Read(name)
	if err != nil {
		return nil, err
	}
	// viper's YAML codec: go.yaml.in/yaml/v3 into a map[string]any.
	tree := map[string]any{}
	if err := yamlcodec.Unmarshal(data, &tree); err != nil {
		return nil, err
	}
	keys, lines, err := yamlKeys(data)
	if err != nil {
		return nil, err
	}
	b := &base{tree: tree, origin: make(map[string]string, len(keys))}
	for _, k := range keys {
		b.origin[k] = fmt.Sprintf("configs/%s:%d", name, lines[k])
	}
	got, _ := bases.LoadOrStore(name, b)
	return got.(*base), nil
}

// copyTree is a deep copy of a decoded YAML tree (maps and lists; the
// leaves are values).
func copyTree(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = copyValue(v)
	}
	return out
}

func copyValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return copyTree(x)
	case map[any]any:
		out := make(map[any]any, len(x))
		for k, e := range x {
			out[k] = copyValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = copyValue(e)
		}
		return out
	}
	return v
}

// parseValue reads a command-line value as YAML (10 is an integer, true a
// bool), or keeps it as a string.
func parseValue(val string) any {
	var parsed any
	if err := yaml.Unmarshal([]byte(val), &parsed); err != nil || parsed == nil {
		return val
	}
	return parsed
}

// Decode decodes the subtree at key into out; unknown or mistyped values are
// errors naming the key and where it was set.
func (l *Loaded) Decode(key string, out any) error {
	// viper's UnmarshalKey returns one source's subtree for a nested key;
	// AllSettings resolves every leaf with the full precedence (flags,
	// --set, user file, embedded files), so decode from it.
	tree, _ := l.V.AllSettings()[key].(map[string]any)
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		ErrorUnused:      true,
		WeaklyTypedInput: false,
		Result:           out,
		DecodeHook:       mapstructure.ComposeDecodeHookFunc(intToFloat),
	})
	if err != nil {
		return err
	}
	if err = dec.Decode(tree); err != nil {
		msg := err.Error()
		if i := strings.Index(msg, "\n"); i >= 0 {
			// "2 error(s) decoding:\n\n* a\n* b": the first is enough.
			msg = strings.TrimSpace(msg[i+1:])
			if j := strings.Index(msg, "\n"); j >= 0 {
				msg = strings.TrimSpace(msg[:j])
			}
		}
		msg = strings.TrimPrefix(msg, "* ")
		// mapstructure names the field ('mau.stages'); find its origin.
		field := ""
		if a := strings.Index(msg, "'"); a >= 0 {
			if b := strings.Index(msg[a+1:], "'"); b >= 0 {
				field = key + "." + msg[a+1:a+1+b]
				// "'mau.stages' must be an integer, got 2.5" becomes
				// "tofino.mau.stages: must be an integer, got 2.5".
				if rest := strings.TrimSpace(msg[a+1+b+1:]); a == 0 || strings.HasPrefix(msg, "error decoding ") || strings.HasPrefix(msg, "decoding ") {
					msg = field + ": " + strings.TrimSpace(strings.TrimPrefix(rest, ":"))
				}
			}
		}
		// A list element's error names the list's key (dscp_modes[0]).
		where := l.Origin(listKey.ReplaceAllString(field, ""))
		if field != "" && strings.HasPrefix(where, "--set "+field+"=") {
			// the flag already names the key
			msg = strings.TrimPrefix(msg, field+": ")
		}
		return fmt.Errorf("%s: %s", where, plainTypes.Replace(msg))
	}
	return nil
}

// listKey matches a list index at the end of a field path ([0]).
var listKey = regexp.MustCompile(`\[\d+\]$`)

// intToFloat lets integers be written where a float is expected (clock_mhz:
// 1250) and parses the strings command-line flags deliver.
func intToFloat(from, to reflect.Type, data any) (any, error) {
	if str, ok := data.(string); ok {
		switch to.Kind() {
		case reflect.Float64:
			f, err := strconv.ParseFloat(strings.TrimSpace(str), 64)
			if err != nil {
				return nil, fmt.Errorf("expected a number, got %q", str)
			}
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("must be a finite number, got %q", str)
			}
			return f, nil
		case reflect.Int, reflect.Int64:
			i, err := strconv.ParseInt(strings.TrimSpace(str), 0, 64)
			if err != nil {
				return nil, fmt.Errorf("expected an integer, got %q", str)
			}
			return i, nil
		case reflect.Bool:
			b, err := strconv.ParseBool(strings.TrimSpace(str))
			if err != nil {
				return nil, fmt.Errorf("expected true or false, got %q", str)
			}
			return b, nil
		}
	}
	if u, ok := data.(uint64); ok {
		// YAML reads 2^63 .. 2^64-1 as unsigned: out of every setting's
		// range, not a negative number after a wrap.
		if u > math.MaxInt64 && (IsInt(to.Kind()) || to.Kind() == reflect.Float64) {
			return nil, fmt.Errorf("%d is out of the integer range", u)
		}
		if to.Kind() == reflect.Float64 {
			return float64(u), nil
		}
	}
	if IsInt(to.Kind()) {
		// An integer setting given a decimal (stages: 2.5) is an error,
		// not a truncation; 3.0 is the integer 3.
		if f, ok := data.(float64); ok {
			if f != math.Trunc(f) || math.IsInf(f, 0) || math.IsNaN(f) {
				return nil, fmt.Errorf("must be an integer, got %v", f)
			}
			if f < math.MinInt64 || f >= math.MaxInt64 {
				return nil, fmt.Errorf("%v is out of the integer range", f)
			}
			return int64(f), nil
		}
	}
	if to.Kind() == reflect.Float64 {
		switch v := data.(type) {
		case float64:
			// NaN would pass every range check (they compare, and NaN
			// compares false), an infinity most.
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("must be a finite number, got %v", v)
			}
		case int:
			return float64(v), nil
		case int64:
			return float64(v), nil
		}
	}
	return data, nil
}

// plainTypes names Go types in decoder messages the way a YAML author
// knows them.
var plainTypes = strings.NewReplacer(
	"expected type 'int'", "expected an integer",
	"expected type 'int64'", "expected an integer",
	"expected type 'uint'", "expected a non-negative integer",
	"expected type 'float64'", "expected a number",
	"expected type 'string'", "expected a string",
	"expected type 'bool'", "expected true or false",
	"unconvertible type '[]interface {}'", "a list",
	"unconvertible type 'map[string]interface {}'", "a mapping",
	"unconvertible type 'string'", "a string",
	"unconvertible type 'bool'", "a bool",
	"unconvertible type 'float64'", "a number",
	"unconvertible type 'int'", "an integer",
	"source data must be an array or slice, got int", "expected a list, got an integer",
	"source data must be an array or slice, got string", "expected a list, got a string",
	"source data must be an array or slice, got float64", "expected a list, got a number",
	"source data must be an array or slice, got bool", "expected a list, got a bool",
)

// IsInt reports whether a kind is a Go integer kind (a decimal given for
// one is an error, here and in scenario files).
func IsInt(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// oneLine keeps the first line of a message.
func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// yamlKeys lists the dotted leaf keys of a YAML document (lower case, as
// viper stores them) and the line each is on.
func yamlKeys(data []byte) ([]string, map[string]int, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, nil, err
	}
	lines := map[string]int{}
	var out []string
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode && root.Kind != 0 {
		return nil, nil, fmt.Errorf("line %d: the file must be a mapping of config keys (e.g. tofino: {mau: {stages: 10}})", root.Line)
	}
	var dup error
	var walk func(prefix string, n *yaml.Node, line int)
	walk = func(prefix string, n *yaml.Node, line int) {
		if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
			walk(prefix, n.Content[0], line)
			return
		}
		if n.Kind == yaml.MappingNode {
			first := map[string]int{}
			for i := 0; i+1 < len(n.Content); i += 2 {
				p := strings.ToLower(n.Content[i].Value)
				if prefix != "" {
					p = prefix + "." + p
				}
				if at, twice := first[p]; twice && dup == nil {
					dup = fmt.Errorf("line %d: %s: given twice (first at line %d)", n.Content[i].Line, p, at)
				}
				first[p] = n.Content[i].Line
				walk(p, n.Content[i+1], n.Content[i].Line)
			}
			return
		}
		if prefix == "" {
			return
		}
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" && dup == nil {
			// viper would read it as the key's zero value (or lose a
			// whole section): say so where it is written.
			dup = fmt.Errorf("line %d: %s: no value (null); give one, or leave the key out for the default", line, prefix)
		}
		if n.Kind == yaml.ScalarNode && (n.Tag == "!!int" || n.Tag == "!!float") && yamlfile.LeadingZero(n.Value) && dup == nil {
			// The YAML decoder reads 012 as octal 10 (and 09 as 9):
			// surely not meant.
			dup = fmt.Errorf("line %d: %s: %s", line, prefix, yamlfile.LeadingZeroText(n.Value, "YAML"))
		}
		if _, seen := lines[prefix]; !seen {
			out = append(out, prefix)
		}
		lines[prefix] = line
	}
	walk("", &doc, 0)
	if dup != nil {
		return nil, nil, dup
	}
	sort.Strings(out)
	return out, lines, nil
}

// Range is a numeric value's allowed range, for CheckRanges.
type Range struct {
	Key    string // below the section, e.g. "mau.stages"
	Val    float64
	Lo, Hi float64
	// LoKey and HiKey name the keys (below the section) a bound comes
	// from, when it is another setting's value ("" for a fixed bound).
	LoKey, HiKey string
}

// In is a value's allowed range, for CheckRanges.
func In(key string, val, lo, hi float64) Range { return Range{Key: key, Val: val, Lo: lo, Hi: hi} }

// From names the settings the bounds come from ("" for a fixed one).
func (r Range) From(loKey, hiKey string) Range {
	r.LoKey, r.HiKey = loKey, hiKey
	return r
}

// CheckRanges checks values decoded from a section (e.g. "tofino"): the
// first out of its range is an error naming the key and where it was set.
// A bound that is another setting's value is named; when the user set
// that one and not the key checked, the error points at the user's.
func (l *Loaded) CheckRanges(section string, rs []Range) error {
	for _, r := range rs {
		if r.Val >= r.Lo && r.Val <= r.Hi { // NaN is out of every range
			continue
		}
		key := section + "." + r.Key
		bound := r.HiKey
		if r.Val < r.Lo {
			bound = r.LoKey
		}
		if bound == "" {
			return fmt.Errorf("%s: %s = %s is out of range [%s, %s]", l.Origin(key), key, num(r.Val), num(r.Lo), num(r.Hi))
		}
		bound = section + "." + bound
		where := l.Origin(key)
		if l.UserSet(bound) && !l.UserSet(key) {
			where = l.Origin(bound)
		}
		return fmt.Errorf("%s: %s = %s is out of range [%s, %s] (a bound set by %s)", where, key, num(r.Val), num(r.Lo), num(r.Hi), bound)
	}
	return nil
}

// num prints a checked value or bound: whole numbers below 1e15 in
// digits (1048576, not 1.048576e+06), the rest as %v does.
func num(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}
