package yamlfile

import (
	"strings"
	"testing"
)

func TestOneDocument(t *testing.T) {
	for _, c := range []struct {
		text, want string
	}{
		{"a: 1\nb: 2\n", ""},
		{"---\na: 1\n", ""},
		{"", ""},
		{"a: [\n", ""}, // not YAML: the caller says so
		{"a: 1\n---\na: 30\n", "f.yaml:3: a second YAML document"},
		{"a: 1\n...\n---\nb: 2\n", "f.yaml:4: a second YAML document"},
		{"a: 1\n---\n", ""}, // an empty second document adds nothing
	} {
		err := OneDocument([]byte(c.text), "f.yaml")
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
}
