// Package yamlfile holds what every YAML input of archsim (programs,
// scenarios, chip and host configs) checks before it is read: that it is
// one document. The YAML libraries read the first document of a stream
// and silently drop the rest, so a file with a stray "---" would run with
// half of what its author wrote.
package yamlfile

import (
	"bytes"
	"fmt"

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
