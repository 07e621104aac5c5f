package programs

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed builtin/*.yaml
var builtinFS embed.FS

// Builtins lists the built-in program names.
func Builtins() []string {
	entries, _ := fs.ReadDir(builtinFS, "builtin")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}

// BuiltinSource returns the YAML text of a built-in program.
func BuiltinSource(name string) ([]byte, bool) {
	data, err := builtinFS.ReadFile("builtin/" + name + ".yaml")
	return data, err == nil
}

// Resolve loads a program by built-in name or file path (anything ending in
// .yaml/.yml or containing a path separator is a file).
func Resolve(nameOrPath string, overrides map[string]string) (*Program, error) {
	if strings.HasSuffix(nameOrPath, ".yaml") || strings.HasSuffix(nameOrPath, ".yml") || strings.ContainsRune(nameOrPath, '/') {
		return LoadFile(nameOrPath, overrides)
	}
	data, ok := BuiltinSource(nameOrPath)
	if !ok {
		return nil, fmt.Errorf("unknown program %q (built-in programs: %s; or give a .yaml file)", nameOrPath, strings.Join(Builtins(), ", "))
	}
	return Load(data, "programs/builtin/"+nameOrPath+".yaml", overrides)
}
