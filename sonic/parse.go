package sonic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// Load reads a config_db.json file and parses it (see Parse).
func Load(path string) (DB, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, errors.New(oneLine(err.Error()))
	}
	return Parse(data, path)
}

// Parse reads CONFIG_DB in config_db.json form: {"TABLE": {"key": {"field":
// value}}}, where a value is a string or a list of strings. config_db.json
// always quotes numbers; bare JSON numbers are accepted too and kept as
// their decimal text (1e3 becomes "1000"). Duplicate names are refused.
// Every error is one line starting with file (and line:column).
func Parse(data []byte, file string) (DB, error) {
	return parseDB(data, file, true)
}

// dbParser walks a syntactically valid document token by token, so that a
// wrongly shaped value can be reported with its position.
type dbParser struct {
	data    []byte
	dec     *json.Decoder
	name    string
	withPos bool
}

// parseDB is Parse; withPos false leaves out line:column (for documents
// the user never saw as text, e.g. the result of a patch).
func parseDB(data []byte, name string, withPos bool) (DB, error) {
	var probe json.RawMessage // checks the syntax only
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, syntaxErr(data, name, withPos, err)
	}
	p := &dbParser{data: data, dec: json.NewDecoder(bytes.NewReader(data)), name: name, withPos: withPos}
	p.dec.UseNumber()
	return p.document()
}

// syntaxErr turns an encoding/json error into "file:line:col: msg".
func syntaxErr(data []byte, name string, withPos bool, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return fmt.Errorf("%s: %s", oneLine(name), oneLine(err.Error()))
	}
	at := int(se.Offset) - 1 // the offset is just past the offending byte
	if strings.Contains(se.Error(), "unexpected end") {
		at = len(data)
	}
	return errors.New(oneLine(positionPrefix(data, name, withPos, max(at, 0)) + "JSON syntax error: " + se.Error()))
}

// positionPrefix is "file:line:col: " for byte offset at (1-based line and
// byte column), or "file: " without positions.
func positionPrefix(data []byte, name string, withPos bool, at int) string {
	if !withPos {
		return name + ": "
	}
	at = min(at, len(data))
	line := 1 + bytes.Count(data[:at], []byte{'\n'})
	col := at - bytes.LastIndexByte(data[:at], '\n')
	return fmt.Sprintf("%s:%d:%d: ", name, line, col)
}

// next returns the next token and the offset where it starts.
func (p *dbParser) next() (json.Token, int, error) {
	at := int(p.dec.InputOffset())
	for at < len(p.data) {
		switch p.data[at] {
		case ' ', '\t', '\r', '\n', ':', ',':
			at++
			continue
		}
		break
	}
	tok, err := p.dec.Token()
	return tok, at, err
}

// fail is a shape error at byte offset at.
func (p *dbParser) fail(at int, format string, a ...any) error {
	return errors.New(oneLine(positionPrefix(p.data, p.name, p.withPos, at) + fmt.Sprintf(format, a...)))
}

func (p *dbParser) document() (DB, error) {
	tok, at, err := p.next()
	if err != nil {
		return nil, p.fail(at, "%v", err)
	}
	if tok != json.Delim('{') {
		return nil, p.fail(at, "the document must be a JSON object of tables (got %s)", tokenKind(tok))
	}
	db := DB{}
	for p.dec.More() {
		tok, at, err := p.next()
		if err != nil {
			return nil, p.fail(at, "%v", err)
		}
		table := tok.(string) // object keys are strings in a valid document
		if _, dup := db[table]; dup {
			return nil, p.fail(at, "%s: duplicate table", quoteIfOdd(table))
		}
		keys, err := p.table(table)
		if err != nil {
			return nil, err
		}
		db[table] = keys
	}
	return db, nil
}

func (p *dbParser) table(table string) (map[string]map[string]any, error) {
	tok, at, err := p.next()
	if err != nil {
		return nil, p.fail(at, "%v", err)
	}
	if tok != json.Delim('{') {
		return nil, p.fail(at, "%s: a table must be a JSON object of keys (got %s)", quoteIfOdd(table), tokenKind(tok))
	}
	keys := map[string]map[string]any{}
	for p.dec.More() {
		tok, at, err := p.next()
		if err != nil {
			return nil, p.fail(at, "%v", err)
		}
		key := tok.(string)
		where := quoteIfOdd(table + "|" + key)
		if _, dup := keys[key]; dup {
			return nil, p.fail(at, "%s: duplicate key", where)
		}
		fields, err := p.entry(where)
		if err != nil {
			return nil, err
		}
		keys[key] = fields
	}
	_, _, err = p.next() // '}'
	return keys, err
}

func (p *dbParser) entry(where string) (map[string]any, error) {
	tok, at, err := p.next()
	if err != nil {
		return nil, p.fail(at, "%v", err)
	}
	if tok != json.Delim('{') {
		return nil, p.fail(at, "%s: an entry must be a JSON object of fields (got %s)", where, tokenKind(tok))
	}
	fields := map[string]any{}
	for p.dec.More() {
		tok, at, err := p.next()
		if err != nil {
			return nil, p.fail(at, "%v", err)
		}
		field := tok.(string)
		if _, dup := fields[field]; dup {
			return nil, p.fail(at, "%s: %s: duplicate field", where, quoteIfOdd(field))
		}
		v, err := p.value(where + ": " + quoteIfOdd(field))
		if err != nil {
			return nil, err
		}
		fields[field] = v
	}
	_, _, err = p.next() // '}'
	return fields, err
}

// value reads a field value: a string, a number (kept as decimal text) or
// a list of those (a []string).
func (p *dbParser) value(where string) (any, error) {
	tok, at, err := p.next()
	if err != nil {
		return nil, p.fail(at, "%v", err)
	}
	if tok == json.Delim('[') {
		list := []string{}
		for p.dec.More() {
			tok, at, err := p.next()
			if err != nil {
				return nil, p.fail(at, "%v", err)
			}
			s, err := scalarText(tok)
			if err != nil {
				return nil, p.badValue(at, where, "list elements must be strings or numbers", tok)
			}
			list = append(list, s)
		}
		_, _, err = p.next() // ']'
		return list, err
	}
	s, err := scalarText(tok)
	if err != nil {
		return nil, p.badValue(at, where, "a value must be a string, a number or a list of strings", tok)
	}
	return s, nil
}

// badValue reports a value of the wrong kind, or a number too large for a
// float64.
func (p *dbParser) badValue(at int, where, rule string, tok json.Token) error {
	if n, ok := tok.(json.Number); ok {
		return p.fail(at, "%s: number out of range (got %s)", where, n)
	}
	return p.fail(at, "%s: %s (got %s)", where, rule, tokenKind(tok))
}

// plainNumber is a JSON number without an exponent; it is kept as written.
var plainNumber = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// scalarText is a string token, or a number token as decimal text
// (exponents expanded: 1e3 → "1000").
func scalarText(tok json.Token) (string, error) {
	switch t := tok.(type) {
	case string:
		return t, nil
	case json.Number:
		s := t.String()
		if plainNumber.MatchString(s) {
			return s, nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return "", err // out of float64 range: reported as a bad value
		}
		return strconv.FormatFloat(f, 'f', -1, 64), nil
	}
	return "", errNotScalar
}

var errNotScalar = errors.New("not a string or a number")

// tokenKind names a token's JSON kind for error messages.
func tokenKind(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return "an object"
		}
		return "a list"
	case bool:
		return strconv.FormatBool(t)
	case nil:
		return "null"
	case json.Number:
		return "the number " + t.String()
	case string:
		return strconv.Quote(t)
	}
	return fmt.Sprintf("%v", tok)
}
