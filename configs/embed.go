// Package configs holds the chip descriptions (tofino.yaml, tofino2.yaml,
// ...) and scenarios as embedded files, so the binary runs from anywhere.
// Every hardware constant lives in these YAML files with its source.
package configs

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.yaml scenarios sonic
var files embed.FS

// Read returns an embedded config file.
func Read(name string) ([]byte, error) { return files.ReadFile(name) }

// Scenarios lists the embedded scenario names (file names without .yaml).
func Scenarios() []string {
	var out []string
	entries, _ := fs.ReadDir(files, "scenarios")
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".yaml") {
			out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
		}
	}
	sort.Strings(out)
	return out
}

// SONiCConfigs lists the embedded SONiC CONFIG_DB files (names without
// .json) under sonic/.
func SONiCConfigs() []string {
	var out []string
	entries, _ := fs.ReadDir(files, "sonic")
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") {
			out = append(out, strings.TrimSuffix(e.Name(), ".json"))
		}
	}
	sort.Strings(out)
	return out
}
