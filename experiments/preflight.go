package experiments

import (
	"fmt"
	"sort"
	"strings"

	"archsim/arch"
	"archsim/job"
	"archsim/programs"
	"archsim/sonic/orch"
)

// Preflight loads, before any run, what the runs will load: every
// switch's chip with its overrides and its program with the variant's and
// the sweep's constants. An error here is bad input (a --set the chip does
// not know, a constant the program refuses), reported as FILE:LINE: field:
// what; Execute would find it only when the run starts.
func (s *Scenario) Preflight(opt Options) error {
	if opt.Records != "" && strings.HasPrefix(s.Workload.Kind, "protego-") {
		return fmt.Errorf("--records: Protego runs count their frames by sequence number at the protected link and keep no per-packet records (workload.kind %s)", s.Workload.Kind)
	}
	seed := opt.Seed
	if seed == 0 {
		seed = s.Seed
	}
	specs, err := s.specs(seed)
	if err != nil {
		return err
	}
	specs = opt.shard(specs)
	index := map[string]int{}
	for i, v := range s.Variants {
		index[v.Name] = i
	}
	for name, i := range s.variantAt {
		index[name] = i
	}
	seen := map[string]bool{}
	ports := newPlan(s.topology()).ports // front-panel ports each switch needs
	for _, spec := range specs {
		for si, ts := range s.topology().Switches {
			setup := spec.variant.setupOf(ts.Name)
			path := fmt.Sprintf("variants[%d]", index[spec.variant.Name])
			if _, ok := spec.variant.Switches[ts.Name]; ok {
				path += ".switches." + ts.Name
			}
			params := map[string]string{}
			for k, v := range setup.Params {
				params[k] = v
			}
			if setup.Program != "" {
				for k, v := range spec.sweepParams {
					params[k] = v
				}
			}
			key := fmt.Sprint(setup.Chip, setup.Set, setup.QueuePackets, setup.Program, sortedParams(params))
			if seen[key] {
				continue
			}
			seen[key] = true
			o := arch.Overrides{Sets: setup.Set}
			target, err := job.Load(setup.Chip, o)
			if err != nil {
				return s.ix.locate(fieldErr(path+".set", "%v", err))
			}
			queueAt := path + ".chip" // where the data queue's size came from
			if setup.QueuePackets > 0 {
				if !hasKnob(setup.Chip, arch.KnobQueuePackets) {
					return s.ix.locate(fieldErr(path+".queue_packets", "chip %s has no queue_packets (the ideal switch's data queue; a program sizes its own queues in its tm: section)", setup.Chip))
				}
				if key := setsKnob(setup.Chip, arch.KnobQueuePackets, setup.Set); key != "" {
					// --set outranks a knob: one of the two would be ignored.
					return s.ix.locate(fieldErr(path+".queue_packets", "give queue_packets or set: [%s=...], not both", key))
				}
				o.Knobs = []arch.KnobValue{{Knob: arch.KnobQueuePackets, Value: fmt.Sprint(setup.QueuePackets), Origin: "queue_packets"}}
				if target, err = job.Load(setup.Chip, o); err != nil {
					return s.ix.locate(fieldErr(path+".queue_packets", "%v", err))
				}
				queueAt = path + ".queue_packets"
			} else if setsKnob(setup.Chip, arch.KnobQueuePackets, setup.Set) != "" {
				queueAt = path + ".set"
			}
			if q, ok := target.(interface{ QueuePackets() int }); ok {
				// The queue the chip will build, however it was sized.
				if err := s.checkIdealQueue(queueAt, setup.Chip, q.QueuePackets()); err != nil {
					return s.ix.locate(err)
				}
			}
			if _, err := target.Compile(nil); err == nil && (setup.Program != "" || len(setup.Params) > 0) {
				// A chip that runs no program would ignore them.
				at, what := path+".program", setup.Program
				if setup.Program == "" {
					at, what = path+".params", "constants"
				}
				return s.ix.locate(fieldErr(at, "chip %s runs no data-plane program (got %s)", setup.Chip, what))
			}
			if setup.Program == "" {
				// A chip that needs a program says so when given none.
				if _, err := target.Compile(nil); err != nil {
					return s.ix.locate(fieldErr(path+".program", "missing: %v", err))
				}
				if err := s.checkPorts(target, si, ports); err != nil {
					return s.ix.locate(fieldErr(path+".chip", "%v", err))
				}
				if k := s.Workload.Kind; k == "protego-stress" || k == "protego-fct" || k == "protego-bulk" {
					// The protected link's ends run the Protego programs.
					if err := s.protegoFits(ts.Name, target, nil); err != nil {
						return s.ix.locate(fieldErr(path+".chip", "%v", err))
					}
				}
				continue
			}
			prog, err := s.checkedProgram(setup.Program, params)
			if err != nil {
				at := path + ".program"
				if spec.value != "" && s.Sweep != nil {
					return s.ix.locate(fieldErr(at, "with %s = %s: %v", s.Sweep.Var, spec.value, err))
				}
				return s.ix.locate(fieldErr(at, "%v", err))
			}
			if err := s.checkPorts(target, si, ports); err != nil {
				return s.ix.locate(fieldErr(path+".chip", "%v", err))
			}
			if len(s.topology().Switches) > 1 && prog.Routes == nil {
				return s.ix.locate(fieldErr(path+".program", "program %s has no routes section, so a control plane cannot install routes in a network of several switches (see README, Program format: routes)", prog.Name))
			}
			if s.Trace != "" && ts.Name == s.topology().Switches[0].Name && !hasRegisterAction(prog, s.Trace) {
				return s.ix.locate(fieldErr("trace_register", "program %s has no register action %q (allowed: REGISTER.ACTION)", prog.Name, s.Trace))
			}
			if k := s.Workload.Kind; k == "protego-stress" || k == "protego-fct" || k == "protego-bulk" {
				if err := s.protegoFits(ts.Name, target, prog); err != nil {
					return s.ix.locate(fieldErr(path+".program", "%v", err))
				}
			}
			if cfgName := spec.sonicConfig(); cfgName != "" && setup.Program == orch.Program && spec.sonicOverride == "" {
				// The variant's own CONFIG_DB (--sonic-config is checked
				// where it is given).
				chip, ok := orch.ChipOf(target)
				if !ok {
					return s.ix.locate(fieldErr(path+".sonic_config", "a SONiC configuration programs a Tofino switch, not %s", target.Name()))
				}
				if _, err := orch.LoadConfig(cfgName, chip); err != nil {
					return s.ix.locate(fieldErr(path+".sonic_config", "%v", err))
				}
			}
			if a := spec.variant.AQM; a != nil && s.AQM != nil && ts.Name == s.AQM.Switch {
				at := fmt.Sprintf("variants[%d].aqm", index[spec.variant.Name])
				if err := aqmFits(a, prog); err != nil {
					return s.ix.locate(fieldErr(at, "%v", err))
				}
			}
		}
	}
	return nil
}

// hasKnob reports whether a registered chip has the knob.
func hasKnob(chip, knob string) bool {
	c, err := arch.Lookup(chip)
	if err != nil {
		return false
	}
	for _, k := range c.Knobs() {
		if k.Name == knob {
			return true
		}
	}
	return false
}

// setsKnob is the chip's key for knob when one of sets (KEY=VALUE)
// assigns it, else "".
func setsKnob(chip, knob string, sets []string) string {
	c, err := arch.Lookup(chip)
	if err != nil {
		return ""
	}
	k, ok := arch.FindKnob(c, knob)
	if !ok {
		return ""
	}
	for _, kv := range sets {
		if key, _, _ := strings.Cut(kv, "="); strings.EqualFold(strings.TrimSpace(key), k.Key) {
			return k.Key
		}
	}
	return ""
}

// sortedParams prints constants in a fixed order.
func sortedParams(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := ""
	for _, k := range keys {
		out += k + "=" + m[k] + ";"
	}
	return out
}

// checkedProgram is programs.Resolve(name, params), loaded once per
// scenario: Preflight, Estimate and the runs only read it. (A load of
// ndp.p4 is about a millisecond; a Tofino run made two.)
func (s *Scenario) checkedProgram(name string, params map[string]string) (*programs.Program, error) {
	key := name + "|" + sortedParams(params)
	m := s.checked
	if m == nil {
		return programs.Resolve(name, params)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if p := m.progs[key]; p != nil {
		return p, nil
	}
	p, err := programs.Resolve(name, params)
	if err != nil {
		return nil, err
	}
	if m.progs == nil {
		m.progs = map[string]*programs.Program{}
	}
	m.progs[key] = p
	return p, nil
}

// hasRegisterAction reports whether prog has the register action
// REGISTER.ACTION (trace_register's form).
func hasRegisterAction(prog *programs.Program, name string) bool {
	reg, act, _ := strings.Cut(name, ".")
	for _, r := range prog.Registers {
		if r.Name != reg {
			continue
		}
		for _, ra := range r.Actions {
			if ra.Name == act {
				return true
			}
		}
	}
	return false
}

// checkPorts checks that switch si's chip has the front-panel ports the
// topology puts on it. A chip whose target lists them (Tofino, Trio) is
// checked; one that sizes itself to its network (the ideal switch) always
// has them.
func (s *Scenario) checkPorts(target arch.Target, si int, need []int) error {
	fp, ok := target.(interface{ FrontPorts() []int })
	if !ok {
		return nil
	}
	if have := len(fp.FrontPorts()); have < need[si] {
		return fmt.Errorf("%s has %d front-panel ports, the topology puts %d on switch %s", target.Name(), have, need[si], s.topology().Switches[si].Name)
	}
	return nil
}
