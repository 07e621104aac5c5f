package programs

import (
	"archsim/internal/yamlfile"
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"math"
	"math/bits"
	"strings"
)

// number is a compile-time numeric value: an integer or a float.
type number struct {
	i       int64
	f       float64
	isFloat bool
}

func (n number) float() float64 {
	if n.isFloat {
		return n.f
	}
	return float64(n.i)
}

// builtinConsts are names every program may use.
var builtinConsts = map[string]int64{
	"true": 1, "false": 0,
	"GREEN": 0, "YELLOW": 1, "RED": 3, // Tofino meter colour encoding (TNA MeterColor_t)
}

// constScope resolves names to compile-time constants.
type constScope struct {
	names map[string]number
}

// parse parses src as a Go expression, once per string in the process (a
// table's for-loop evaluates the same key and action strings once per
// iteration, and every load of a program the same ones again): the trees
// are only read, and shared through parsedCode.
func (s *constScope) parse(src string) (ast.Expr, error) {
	key := "const\x00" + src
	if p, ok := parsedCode.Load(key); ok {
		return p.(parsedText).node.(ast.Expr), nil
	}
	e, err := parser.ParseExpr(src)
	if err != nil {
		return nil, err
	}
	parsedCode.Store(key, parsedText{node: e})
	return e, nil
}

func (s *constScope) lookup(name string) (number, bool) {
	if v, ok := builtinConsts[name]; ok {
		return number{i: v}, true
	}
	v, ok := s.names[name]
	return v, ok
}

// evalConstString evaluates a compile-time expression written in Go syntax:
// numbers, named constants, + - * / % << >> & | ^ and parentheses.
func (s *constScope) evalConstString(src string) (number, error) {
	src = strings.TrimSpace(src)
	if yamlfile.LeadingZero(src) {
		return number{}, errors.New(octalLiteral(src))
	}
	if v, ok := parseIntLiteral(src); ok {
		return number{i: v}, nil
	}
	if v, ok := parseAddress(src); ok {
		return number{i: v}, nil
	}
	e, err := s.parse(src)
	if err != nil {
		return number{}, fmt.Errorf("cannot parse %q as an expression", src)
	}
	return s.evalConst(e)
}

func (s *constScope) evalConst(e ast.Expr) (number, error) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.INT && yamlfile.LeadingZero(e.Value) {
			return number{}, errors.New(octalLiteral(e.Value))
		}
		if len(e.Value) > 64 || hugeExponent(e.Value) {
			return number{}, fmt.Errorf("number %.20s... is out of range", e.Value)
		}
		v := constant.MakeFromLiteral(e.Value, e.Kind, 0)
		switch v.Kind() {
		case constant.Int:
			if i, ok := constant.Int64Val(v); ok {
				return number{i: i}, nil
			}
			return number{}, fmt.Errorf("integer %s does not fit in 64 bits", e.Value)
		case constant.Float:
			f, _ := constant.Float64Val(v)
			if f == math.Trunc(f) && math.Abs(f) < 1<<62 {
				return number{i: int64(f)}, nil
			}
			return number{f: f, isFloat: true}, nil
		}
		return number{}, fmt.Errorf("%s is not a number", e.Value)
	case *ast.Ident:
		if v, ok := s.lookup(e.Name); ok {
			return v, nil
		}
		return number{}, fmt.Errorf("undefined constant %q", e.Name)
	case *ast.ParenExpr:
		return s.evalConst(e.X)
	case *ast.CallExpr:
		id, ok := e.Fun.(*ast.Ident)
		if !ok || len(e.Args) != 1 {
			return number{}, fmt.Errorf("only log2ceil(x) may be called in a constant")
		}
		x, err := s.evalConst(e.Args[0])
		if err != nil {
			return x, err
		}
		switch id.Name {
		case "log2ceil":
			if x.isFloat || x.i < 1 {
				return x, fmt.Errorf("log2ceil needs a positive integer")
			}
			return number{i: int64(bits.Len64(uint64(x.i - 1)))}, nil
		}
		return number{}, fmt.Errorf("unknown function %s in a constant (log2ceil is available)", id.Name)
	case *ast.UnaryExpr:
		x, err := s.evalConst(e.X)
		if err != nil {
			return x, err
		}
		switch e.Op {
		case token.SUB:
			return number{i: -x.i, f: -x.f, isFloat: x.isFloat}, nil
		case token.ADD:
			return x, nil
		case token.XOR:
			if x.isFloat {
				return x, fmt.Errorf("^ needs an integer")
			}
			return number{i: ^x.i}, nil
		}
	case *ast.BinaryExpr:
		return s.evalConstBinary(e)
	}
	return number{}, fmt.Errorf("not a compile-time constant expression")
}

func (s *constScope) evalConstBinary(e *ast.BinaryExpr) (number, error) {
	x, err := s.evalConst(e.X)
	if err != nil {
		return x, err
	}
	y, err := s.evalConst(e.Y)
	if err != nil {
		return y, err
	}
	if x.isFloat || y.isFloat {
		a, b := x.float(), y.float()
		switch e.Op {
		case token.ADD:
			return floatOrInt(a + b), nil
		case token.SUB:
			return floatOrInt(a - b), nil
		case token.MUL:
			return floatOrInt(a * b), nil
		case token.QUO:
			if b == 0 {
				return x, fmt.Errorf("division by zero")
			}
			return floatOrInt(a / b), nil
		}
		return x, fmt.Errorf("operator %s needs integers", e.Op)
	}
	a, b := x.i, y.i
	// Constants are 64-bit: a result that does not fit is an error, not
	// a wrap (a bit pattern with the top bit set, 1 << 63, is allowed).
	overflow := func() (number, error) {
		return x, fmt.Errorf("%d %s %d overflows 64 bits", a, e.Op, b)
	}
	switch e.Op {
	case token.ADD:
		if (b > 0 && a > math.MaxInt64-b) || (b < 0 && a < math.MinInt64-b) {
			return overflow()
		}
		return number{i: a + b}, nil
	case token.SUB:
		if (b < 0 && a > math.MaxInt64+b) || (b > 0 && a < math.MinInt64+b) {
			return overflow()
		}
		return number{i: a - b}, nil
	case token.MUL:
		if a != 0 && ((a*b)/a != b || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64)) {
			return overflow()
		}
		return number{i: a * b}, nil
	case token.QUO: // integer division truncates, as in Go
		if b == 0 {
			return x, fmt.Errorf("division by zero")
		}
		return number{i: a / b}, nil
	case token.REM:
		if b == 0 {
			return x, fmt.Errorf("division by zero")
		}
		return number{i: a % b}, nil
	case token.SHL:
		if b < 0 || b > 63 {
			return x, fmt.Errorf("shift count %d (allowed: 0..63)", b)
		}
		// Every bit shifted out must be a copy of the sign (-1 << 8) or,
		// for a bit pattern, zero (3 << 62).
		if u := uint64(a); (a<<uint(b))>>uint(b) != a && u<<uint(b)>>uint(b) != u {
			return overflow()
		}
		return number{i: a << uint(b)}, nil
	case token.SHR:
		if b < 0 || b > 63 {
			return x, fmt.Errorf("shift count %d (allowed: 0..63)", b)
		}
		return number{i: a >> uint(b)}, nil
	case token.AND:
		return number{i: a & b}, nil
	case token.OR:
		return number{i: a | b}, nil
	case token.XOR:
		return number{i: a ^ b}, nil
	}
	return x, fmt.Errorf("operator %s is not allowed in a constant", e.Op)
}

func floatOrInt(f float64) number {
	if f == math.Trunc(f) && math.Abs(f) < 1<<62 {
		return number{i: int64(f)}
	}
	return number{f: f, isFloat: true}
}

// value evaluates a YAML scalar holding a constant expression.
func (s *constScope) value(n node) (number, error) {
	str, err := n.str()
	if err != nil {
		return number{}, err
	}
	v, err := s.evalConstString(str)
	if err != nil {
		return number{}, n.errf("%v", err)
	}
	return v, nil
}

// intValue evaluates a YAML scalar that must be an integer.
func (s *constScope) intValue(n node) (int64, error) {
	v, err := s.value(n)
	if err != nil {
		return 0, err
	}
	if v.isFloat {
		return 0, n.errf("expected an integer, got %g", v.f)
	}
	return v.i, nil
}

// floatValue evaluates a YAML scalar that must be a number.
func (s *constScope) floatValue(n node) (float64, error) {
	v, err := s.value(n)
	return v.float(), err
}

// hugeExponent reports a float literal whose exponent exceeds float64's
// range (constant.MakeFromLiteral would build an enormous exact value).
func hugeExponent(lit string) bool {
	i := strings.IndexAny(lit, "eEpP")
	if i < 0 || strings.HasPrefix(lit, "0x") || strings.HasPrefix(lit, "0X") {
		return false
	}
	exp := strings.TrimLeft(lit[i+1:], "+-")
	return len(exp) > 3
}

// octalLiteral is the error for an integer written with a leading zero
// (010), which Go's syntax and YAML read as octal (8): surely not what its
// author meant.
func octalLiteral(v string) string {
	return yamlfile.LeadingZeroText(v, "")
}
