// Package tables draws archsim's terminal tables (tablewriter): ASCII,
// headers as written, no wrapping, so output is stable and greppable.
package tables

import (
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Table is one table being filled.
type Table struct{ t *tablewriter.Table }

// New starts a table with headers on w.
func New(w io.Writer, headers ...string) *Table {
	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithTrimSpace(tw.Off),
	)
	h := make([]any, len(headers))
	for i, s := range headers {
		h[i] = s
	}
	t.Header(h...)
	return &Table{t}
}

// Row appends a row.
func (t *Table) Row(cells ...string) { _ = t.t.Append(cells) }

// Render writes the table.
func (t *Table) Render() { _ = t.t.Render() }
