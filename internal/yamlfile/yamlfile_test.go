package yamlfile

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
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

// The message suggests 0o only for digits octal has; YAML reads 09 as the
// float 9, and OctalInt refuses it too, so a leading zero means one thing.
func TestLeadingZeroText(t *testing.T) {
	for v, want := range map[string]string{
		"012":  "012 has a leading zero, which YAML reads as octal; write 12 (or 0o12 for octal)",
		"-012": "-012 has a leading zero, which YAML reads as octal; write -12 (or -0o12 for octal)",
		"00":   "00 has a leading zero, which YAML reads as octal; write 0 (or 0o0 for octal)",
		"09":   "09 has a leading zero; write 9",
		"0_18": "0_18 has a leading zero; write 18",
	} {
		if got := LeadingZeroText(v, "YAML"); got != want {
			t.Errorf("LeadingZeroText(%q) = %q, want %q", v, got, want)
		}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("a: 1\nb: [2, 09]\n"), &doc); err != nil {
		t.Fatal(err)
	}
	if n := OctalInt(&doc); n == nil || n.Value != "09" || n.Line != 2 {
		t.Errorf("OctalInt found %+v, want 09 on line 2", n)
	}
}
