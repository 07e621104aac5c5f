package compiler

import (
	"fmt"

	"archsim/arch/tofino/spec"
	"archsim/programs"
)

// ParserUse is the parser TCAM a program's parse graph needs: a lower
// bound on what bf-p4c allocates, against the rows each gress's parser has.
type ParserUse struct {
	TCAMRows int `json:"tcam_rows"` // at least this many (see parserRows)
	Capacity int `json:"tcam_rows_capacity"`
}

// parserRows is a lower bound on the parser TCAM rows the program's parse
// graph takes in each gress. bf-p4c gives every match of a lowered parser
// state its own TCAM row (GenerateParserP4iJson::getTcamId, one id per
// LoweredParserMatch), so a state takes one row per transition it selects
// on, default included, and one if it selects on nothing; and it splits a
// state whose extracts span more than the parser's input window
// (parde_spec.h byteInputBufferSize(), latency.parser_window_bytes) into
// one state per window, each one row more. Rows bf-p4c adds beyond these
// (the intrinsic-metadata states, splits for extractor limits) are not
// counted, so a program this rejects bf-p4c rejects too.
func parserRows(c *spec.Config, prog *programs.Program) (rows int, worst *programs.ParseState, worstRows int) {
	window := max(1, c.Latency.ParserWindowBytes)
	for _, s := range prog.Parser.States {
		n := max(1, len(s.Transitions))
		bits := 0
		for _, h := range s.Extract {
			bits += h.Bits
		}
		if bytes := (bits + 7) / 8; bytes > window {
			n += (bytes+window-1)/window - 1
		}
		rows += n
		if worst == nil || n > worstRows {
			worst, worstRows = s, n
		}
	}
	return rows, worst, worstRows
}

// checkParser refuses a parse graph that needs more TCAM rows than a
// parser has (rule parser-tcam).
func checkParser(c *spec.Config, prog *programs.Program) (ParserUse, error) {
	rows, worst, worstRows := parserRows(c, prog)
	use := ParserUse{TCAMRows: rows, Capacity: c.Parser.TCAMRows}
	if rows > c.Parser.TCAMRows {
		pos := programs.Pos{}
		name := ""
		if worst != nil {
			pos, name = worst.Pos, fmt.Sprintf("; the largest state, %s, takes %d", worst.Name, worstRows)
		}
		return use, ruleErr(RuleParserTCAM, pos, "the parse graph needs at least %d parser TCAM rows (one per transition of each state, default included, and one more per %d-byte window a state's extracts span beyond the first%s); a %s parser has %d",
			rows, c.Latency.ParserWindowBytes, name, c.Name, c.Parser.TCAMRows)
	}
	return use, nil
}
