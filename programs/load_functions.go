package programs

import (
	"strings"
)

// declareFunctions is the first pass over functions: it registers every
// name with an empty body, so that calls resolve whatever the declaration
// order. n is the functions mapping, or a zero node when there is none.
func (l *loader) declareFunctions(n node) error {
	l.functions = map[string]*Function{}
	if n.n == nil {
		return nil
	}
	ps, err := n.pairs()
	if err != nil {
		return err
	}
	for _, p := range ps {
		fn := &Function{Name: p.key, Pos: p.val.pos()}
		l.functions[fn.Name] = fn
		l.prog.Functions = append(l.prog.Functions, fn)
		l.fnBodies = append(l.fnBodies, p)
	}
	return nil
}

// loadFunctions is the second pass: it checks the names, parses the bodies
// (control code) and rejects recursion.
func (l *loader) loadFunctions(node) error {
	for _, p := range l.fnBodies {
		if err := l.checkCodeName(p.val, p.key, "function"); err != nil {
			return err
		}
	}
	for i, p := range l.fnBodies {
		fn := l.prog.Functions[i]
		if !p.val.isScalar() {
			return p.val.errf("a function's body is control code (a string, e.g. f: |)")
		}
		if p.val.n.Tag == "!!null" {
			continue // an empty function
		}
		c := l.code(p.val, ctxControl)
		c.what = "function " + fn.Name
		stmts, err := c.parse()
		if err != nil {
			return err
		}
		fn.Body = stmts
	}
	return l.checkRecursion()
}

// checkCodeName checks the name of a function or a timer (kind) and
// declares it: built-in statements and functions, actions, constants and
// every other top-level object (headers, registers, meters, counters,
// tables, functions) are clashes.
func (l *loader) checkCodeName(n node, name, kind string) error {
	switch {
	case isBuiltinStmt(name):
		return n.errf("%s name %q is a built-in statement", kind, name)
	case isBuiltinFunc(name):
		return n.errf("%s name %q is a built-in function", kind, name)
	}
	if err := checkName(n, name, kind); err != nil {
		return err
	}
	if _, ok := l.actions[name]; ok {
		return n.errf("%s %q: the name is already used by an action", kind, name)
	}
	if _, ok := l.consts.names[name]; ok {
		return n.errf("%s %q: the name is already used by a constant", kind, name)
	}
	return l.declare(n, name, kind)
}

// checkRecursion rejects a function that calls itself, directly or through
// other functions: the error names the cycle and sits on the call that
// closes it.
func (l *loader) checkRecursion() error {
	const (
		unvisited = iota
		active
		done
	)
	state := map[*Function]int{}
	var stack []*Function
	var visit func(fn *Function) error
	visit = func(fn *Function) error {
		state[fn] = active
		stack = append(stack, fn)
		var err error
		WalkStmts(fn.Body, func(s Stmt) {
			c, ok := s.(*CallStmt)
			if !ok || err != nil {
				return
			}
			switch state[c.Fn] {
			case active:
				var names []string
				for i := len(stack) - 1; i >= 0; i-- {
					if stack[i] == c.Fn {
						for _, f := range stack[i:] {
							names = append(names, f.Name)
						}
						break
					}
				}
				names = append(names, c.Fn.Name)
				err = errorf(c.Pos, "function "+fn.Name, "recursion: %s", strings.Join(names, " -> "))
			case unvisited:
				err = visit(c.Fn)
			}
		})
		stack = stack[:len(stack)-1]
		state[fn] = done
		return err
	}
	for _, fn := range l.prog.Functions {
		if state[fn] == unvisited {
			if err := visit(fn); err != nil {
				return err
			}
		}
	}
	return nil
}
