package arch

import (
	"fmt"

	"archsim/programs"
)

// StateControl is the control plane of a switch whose program state is one
// programs.State per unit (per pipe on Tofino, one on a Trio PFE): writes
// go to every unit alike, counter reads sum over the units, register reads
// come from the first unit.
type StateControl struct {
	Prog   *programs.Program
	States []*programs.State
}

// Program is the program the switch runs.
func (c *StateControl) Program() *programs.Program { return c.Prog }

// WriteTable installs a table's whole contents in every unit.
func (c *StateControl) WriteTable(name string, es []*programs.Entry) error {
	t := c.Prog.Table(name)
	if t == nil {
		return fmt.Errorf("program %s has no table %s", c.Prog.Name, name)
	}
	for _, st := range c.States {
		if err := st.SetEntries(t, es); err != nil {
			return err
		}
	}
	return nil
}

// AddEntries adds entries to a table in every unit, keeping its others
// (a driver's entry adds; an existing exact key is modified).
func (c *StateControl) AddEntries(name string, es []*programs.Entry) error {
	t := c.Prog.Table(name)
	if t == nil {
		return fmt.Errorf("program %s has no table %s", c.Prog.Name, name)
	}
	for _, st := range c.States {
		if err := st.AddEntries(t, es); err != nil {
			return err
		}
	}
	return nil
}

// DeleteEntries removes entries (by key) from a table in every unit.
func (c *StateControl) DeleteEntries(name string, es []*programs.Entry) error {
	t := c.Prog.Table(name)
	if t == nil {
		return fmt.Errorf("program %s has no table %s", c.Prog.Name, name)
	}
	for _, st := range c.States {
		if err := st.DeleteEntries(t, es); err != nil {
			return err
		}
	}
	return nil
}

func (c *StateControl) register(name string, index int) (*programs.Register, error) {
	r := c.Prog.Register(name)
	if r == nil {
		return nil, fmt.Errorf("program %s has no register %s", c.Prog.Name, name)
	}
	if index < 0 || index >= r.Size {
		return nil, fmt.Errorf("register %s: index %d out of range 0..%d", name, index, r.Size-1)
	}
	return r, nil
}

// ReadRegister reads a register cell (of the first unit).
func (c *StateControl) ReadRegister(name string, index int) (int64, error) {
	r, err := c.register(name, index)
	if err != nil {
		return 0, err
	}
	return c.States[0].Regs[r.Index].Get(index), nil
}

// WriteRegister writes a register cell in every unit.
func (c *StateControl) WriteRegister(name string, index int, v int64) error {
	r, err := c.register(name, index)
	if err != nil {
		return err
	}
	for _, st := range c.States {
		st.Regs[r.Index].Set(index, r.Type.Norm(v))
	}
	return nil
}

// CounterValue sums a program counter's packets at an index over the units.
func (c *StateControl) CounterValue(name string, index int) int64 {
	for _, ct := range c.Prog.Counters {
		if ct.Name != name || index < 0 || index >= ct.Size {
			continue
		}
		var n int64
		for _, st := range c.States {
			n += st.Counters[ct.Index].Get(index)[0]
		}
		return n
	}
	return 0
}
