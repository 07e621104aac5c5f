package programs

import "fmt"

// Pos is a position in a program file.
type Pos struct {
	File string
	Line int
}

func (p Pos) String() string {
	if p.Line <= 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// Error is a one-line diagnostic about a program description: where (file and
// line), what (the object path, e.g. "table l3_forwarding key"), and why.
type Error struct {
	Pos  Pos
	What string
	Msg  string
}

func (e *Error) Error() string {
	if e.What == "" {
		return fmt.Sprintf("%s: %s", e.Pos, e.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", e.Pos, e.What, e.Msg)
}

func errorf(p Pos, what, format string, args ...any) *Error {
	return &Error{Pos: p, What: what, Msg: fmt.Sprintf(format, args...)}
}
