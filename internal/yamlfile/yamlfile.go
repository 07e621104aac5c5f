// Package yamlfile holds what every YAML input of archsim (programs,
// scenarios, chip and host configs) checks before it is read: that it is
// one document. The YAML libraries read the first document of a stream
// and silently drop the rest, so a file with a stray "---" would run with
// half of what its author wrote.
package yamlfile

import (
	"bytes"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// OneDocument returns an error "FILE:LINE: ..." naming the line of file
// where a second document begins, or nil when data holds at most one (or
// is not valid YAML: the caller's own parse reports that with its
// context).
func OneDocument(data []byte, file string) error {
	if line := SecondDocument(data); line > 0 {
		return SecondDocumentError(file, line)
	}
	return nil
}

// SecondDocumentError is OneDocument's error for a second document at
// line.
func SecondDocumentError(file string, line int) error {
	return fmt.Errorf("%s:%d: a second YAML document (after ---); a file holds one, and the rest would be ignored", file, line)
}

// SecondDocument is the line where data's second non-empty YAML document
// begins, 0 if there is none (or data is not valid YAML).
func SecondDocument(data []byte) int {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var first yaml.Node
	if err := dec.Decode(&first); err != nil {
		return 0
	}
	var second yaml.Node
	if err := dec.Decode(&second); err != nil {
		return 0 // io.EOF: one document; otherwise the caller's parse says what is wrong
	}
	if len(second.Content) == 0 || (second.Content[0].Tag == "!!null" && second.Content[0].Value == "") {
		return 0 // an empty document adds nothing
	}
	return second.Content[0].Line
}

// LeadingZero reports whether v is a decimal integer written with a
// leading zero (012, -012, 0_12; not 0, 0x12, 0o12, 0.5 or 00:15:4d:...).
func LeadingZero(v string) bool {
	v = strings.TrimLeft(v, "+-")
	if len(v) < 2 || v[0] != '0' {
		return false
	}
	for _, c := range v[1:] {
		if (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

// OctalInt returns the first integer under n written with a leading zero
// (stages: 012), which the YAML decoder reads as octal (10): surely not
// what its author meant. nil when there is none.
func OctalInt(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	// 012 is an !!int (octal 10); 09 a !!float (9): both are refused, so
	// that a leading zero means the same everywhere.
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!int" || n.Tag == "!!float") && LeadingZero(n.Value) {
		return n
	}
	for _, c := range n.Content {
		if o := OctalInt(c); o != nil {
			return o
		}
	}
	return nil
}

// OctalIntError is "FILE:LINE: 012 has a leading zero ..." for n, an
// integer OctalInt found in file.
func OctalIntError(file string, n *yaml.Node) error {
	return fmt.Errorf("%s:%d: %s", file, n.Line, LeadingZeroText(n.Value, "YAML"))
}

// LeadingZeroText says what is wrong with v, a decimal integer written
// with a leading zero, and what to write: "012 has a leading zero, which
// YAML reads as octal; write 12 (or 0o12 for octal)" (reader: who reads
// it so, "" for no one in particular), or for digits octal has not ("09":
// YAML reads 9, Go's syntax refuses it) "09 has a leading zero; write 9".
func LeadingZeroText(v, reader string) string {
	sign := ""
	if strings.HasPrefix(v, "-") {
		sign = "-"
	}
	d := strings.TrimLeft(strings.TrimLeft(v, "+-"), "0_")
	if d == "" {
		d = "0"
	}
	if strings.ContainsAny(d, "89") {
		return fmt.Sprintf("%s has a leading zero; write %s%s", v, sign, d)
	}
	if reader != "" {
		reader += " "
	}
	return fmt.Sprintf("%s has a leading zero, which %sreads as octal; write %s%s (or %s0o%s for octal)", v, reader, sign, d, sign, d)
}
