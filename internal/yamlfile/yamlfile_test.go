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

// Only a decimal integer with a leading zero is octal by accident.
func TestLeadingZero(t *testing.T) {
	for v, want := range map[string]bool{
		"012": true, "-012": true, "+07": true, "0_12": true, "00": true,
		"0": false, "12": false, "0x12": false, "0o12": false, "0b1": false, "0.5": false, "00:15:4d:13:82:b7": false, "": false, "-0": false,
	} {
		if got := LeadingZero(v); got != want {
			t.Errorf("LeadingZero(%q) = %v, want %v", v, got, want)
		}
	}
}
