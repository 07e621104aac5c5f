package orch

import (
	"fmt"
	"os"
	"strings"

	"archsim/arch"
	"archsim/arch/tofino"
	"archsim/configs"
	"archsim/sonic"
)

// ReadDB reads a CONFIG_DB JSON file: a path (anything with a "/" or
// ending in .json) or the name of a file under configs/sonic.
func ReadDB(nameOrPath string) (sonic.DB, error) {
	data, file, err := readRaw(nameOrPath)
	if err != nil {
		return nil, err
	}
	return sonic.Parse(data, file)
}

// readRaw reads a CONFIG_DB file's bytes and the name errors give it.
func readRaw(nameOrPath string) ([]byte, string, error) {
	if strings.ContainsRune(nameOrPath, '/') || strings.HasSuffix(nameOrPath, ".json") {
		data, err := os.ReadFile(nameOrPath)
		if err != nil {
			return nil, "", fmt.Errorf("%s: cannot read SONiC config: %v", nameOrPath, err)
		}
		return data, nameOrPath, nil
	}
	data, err := configs.Read("sonic/" + nameOrPath + ".json")
	if err != nil {
		return nil, "", fmt.Errorf("unknown SONiC config %q (built in: %s)", nameOrPath, strings.Join(configs.SONiCConfigs(), ", "))
	}
	return data, "configs/sonic/" + nameOrPath + ".json", nil
}

// lineOf finds the line of an error about TABLE|key: field: ... in the
// JSON text: the table's name, then the key, then the field, each the
// first quoted occurrence after the previous one (0: not found).
func lineOf(data []byte, msg string) int {
	where, rest, ok := strings.Cut(msg, ": ")
	table, key, ok2 := strings.Cut(where, "|")
	if !ok || !ok2 {
		return 0
	}
	names := []string{table, key}
	if field, _, ok := strings.Cut(rest, ": "); ok && !strings.ContainsAny(field, " ()") {
		names = append(names, field)
	}
	at, line := 0, 0
	text := string(data)
	for _, n := range names {
		i := strings.Index(text[at:], `"`+n+`"`)
		if i < 0 {
			break
		}
		at += i
		line = 1 + strings.Count(text[:at], "\n")
		at += len(n) + 2
	}
	return line
}

// LoadConfig reads and validates a CONFIG_DB against a chip's capabilities.
// Errors name the file.
func LoadConfig(nameOrPath string, chip *tofino.Config) (*sonic.Config, error) {
	data, file, err := readRaw(nameOrPath)
	if err != nil {
		return nil, err
	}
	db, err := sonic.Parse(data, file)
	if err != nil {
		return nil, err
	}
	cfg, err := sonic.Validate(db, Capabilities(chip))
	if err != nil {
		if line := lineOf(data, err.Error()); line > 0 {
			return nil, fmt.Errorf("%s:%d: %v", file, line, err)
		}
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	return cfg, nil
}

// ChipOf is the Tofino configuration of a target (SONiC programs Tofino
// switches only: ok is false for any other chip).
func ChipOf(t arch.Target) (*tofino.Config, bool) {
	tt, ok := t.(*tofino.Target)
	if !ok {
		return nil, false
	}
	return tt.Config(), true
}

// Attach returns an agent for a switch built by a Tofino target running
// the sonic-l3 program.
func Attach(sw arch.Switch) (*Agent, error) {
	ts, ok := sw.(*tofino.Switch)
	if !ok {
		return nil, fmt.Errorf("a SONiC configuration programs a Tofino switch; %s is not one", sw.Name())
	}
	return New(ts)
}
