package sonic

import (
	"encoding/json"
	"errors"
	"fmt"

	jsonpatch "github.com/evanphx/json-patch/v5"
)

// Patch applies an RFC 6902 JSON Patch (what `config apply-patch` takes)
// to CONFIG_DB in its JSON form and returns the result as a new DB; db is
// not changed. Paths are /TABLE/key/field ("~1" stands for "/" in a key).
// A table left empty by the patch is dropped, as CONFIG_DB cannot hold an
// empty table. Errors are one line, starting "patch: ".
func Patch(db DB, patch []byte) (DB, error) {
	var probe json.RawMessage // json-patch's own decoder reports no position
	if err := json.Unmarshal(patch, &probe); err != nil {
		return nil, syntaxErr(patch, "patch", true, err)
	}
	if probe[0] != '[' {
		return nil, errors.New("patch: must be a JSON list of operations")
	}
	p, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		return nil, fmt.Errorf("patch: %s", oneLine(err.Error()))
	}
	doc, err := marshalDB(db)
	if err != nil {
		return nil, err
	}
	out, err := p.Apply(doc)
	if err != nil {
		return nil, fmt.Errorf("patch: %s", oneLine(err.Error()))
	}
	next, err := parseDB(out, "patch: result", false)
	if err != nil {
		return nil, err
	}
	for table, keys := range next {
		if len(keys) == 0 {
			delete(next, table)
		}
	}
	return next, nil
}

// marshalDB is db's JSON form (an empty object for a nil DB).
func marshalDB(db DB) ([]byte, error) {
	if db == nil {
		db = DB{}
	}
	b, err := json.Marshal(db)
	if err != nil {
		return nil, fmt.Errorf("CONFIG_DB: %s", oneLine(err.Error()))
	}
	return b, nil
}

// cloneDB is a deep copy of db.
func cloneDB(db DB) DB {
	out := make(DB, len(db))
	for table, keys := range db {
		k := make(map[string]map[string]any, len(keys))
		for key, fields := range keys {
			f := make(map[string]any, len(fields))
			for name, val := range fields {
				f[name] = cloneValue(val)
			}
			k[key] = f
		}
		out[table] = k
	}
	return out
}

// cloneValue copies a field value. Parsed values are strings and
// []string; a hand-built DB may hold other JSON shapes in tables that are
// not modelled, which are copied too.
func cloneValue(v any) any {
	switch t := v.(type) {
	case []string:
		return append([]string(nil), t...)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = cloneValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = cloneValue(e)
		}
		return out
	}
	return v
}
