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
	if strings.ContainsRune(nameOrPath, '/') || strings.HasSuffix(nameOrPath, ".json") {
		data, err := os.ReadFile(nameOrPath)
		if err != nil {
			return nil, fmt.Errorf("%s: cannot read SONiC config: %v", nameOrPath, err)
		}
		return sonic.Parse(data, nameOrPath)
	}
	data, err := configs.Read("sonic/" + nameOrPath + ".json")
	if err != nil {
		return nil, fmt.Errorf("unknown SONiC config %q (built in: %s)", nameOrPath, strings.Join(configs.SONiCConfigs(), ", "))
	}
	return sonic.Parse(data, "configs/sonic/"+nameOrPath+".json")
}

// LoadConfig reads and validates a CONFIG_DB against a chip's capabilities.
// Errors name the file.
func LoadConfig(nameOrPath string, chip *tofino.Config) (*sonic.Config, error) {
	db, err := ReadDB(nameOrPath)
	if err != nil {
		return nil, err
	}
	cfg, err := sonic.Validate(db, Capabilities(chip))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", nameOrPath, err)
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
