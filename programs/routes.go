package programs

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// Routes says how a control plane installs the route to one host in the
// program's forwarding table: an entry template whose key and action may
// use h (the host: its address is hosts.HostIP(h)) and p (the device port
// towards it). A network of several switches installs one entry per host
// in every switch running the program (experiments topologies); a single
// switch keeps the table's own entries.
//
//	routes:
//	  table: ipv4_lpm
//	  key: "(10 << 24 | 1 << 16 | h << 8)/24"
//	  action: "forward(p)"
type Routes struct {
	Table  *Table
	Pos    Pos
	entry  node
	consts map[string]number
}

// RouteSet is the whole contents of a route table for a network.
type RouteSet struct {
	Table   string
	Entries []*Entry
}

// loadRoutes reads the routes section and checks its template once (h = 0,
// p = 0) so that mistakes are reported at load, with their line.
func (l *loader) loadRoutes(n node) error {
	if n.n.Kind == yaml.ScalarNode && n.n.Tag == "!!null" {
		return nil
	}
	f, err := n.fields("table", "key", "action")
	if err != nil {
		return err
	}
	tn, ok := f["table"]
	if !ok {
		return n.errf("routes: missing table")
	}
	name, err := tn.str()
	if err != nil {
		return err
	}
	t := l.tables[name]
	if t == nil {
		return tn.errf("routes: no table %q", name)
	}
	entry := &yaml.Node{Kind: yaml.MappingNode, Line: n.n.Line, Column: n.n.Column}
	for i := 0; i+1 < len(n.n.Content); i += 2 {
		if k := n.n.Content[i].Value; k == "key" || k == "action" {
			entry.Content = append(entry.Content, n.n.Content[i], n.n.Content[i+1])
		}
	}
	r := &Routes{Table: t, Pos: n.pos(), entry: node{n: entry, file: n.file, what: "routes"}, consts: map[string]number{}}
	for k, v := range l.consts.names {
		r.consts[k] = v
	}
	if _, err := r.entryFor(l.prog, 0, 0); err != nil {
		return err
	}
	l.prog.Routes = r
	return nil
}

// entryFor builds the route entry of host h through port p.
func (r *Routes) entryFor(prog *Program, h, p int) (*Entry, error) {
	names := make(map[string]number, len(r.consts)+2)
	for k, v := range r.consts {
		names[k] = v
	}
	names["h"], names["p"] = number{i: int64(h)}, number{i: int64(p)}
	l := &loader{file: prog.File, prog: prog, consts: &constScope{names: names}}
	return l.loadEntry(r.entry, r.Table, h)
}

// RouteEntries builds the route table of a switch: for host h, the entry
// through device port ports[h] (hosts with a negative port get none).
func (p *Program) RouteEntries(ports []int) (*RouteSet, error) {
	r := p.Routes
	if r == nil {
		return nil, fmt.Errorf("%s: program %s has no routes section, so a control plane cannot install routes in a network of several switches", p.File, p.Name)
	}
	set := &RouteSet{Table: r.Table.Name}
	for h, port := range ports {
		if port < 0 {
			continue
		}
		e, err := r.entryFor(p, h, port)
		if err != nil {
			return nil, err
		}
		set.Entries = append(set.Entries, e)
	}
	if len(set.Entries) > r.Table.Size {
		return nil, fmt.Errorf("%s: routes to %d hosts do not fit table %s (size %d)", r.Pos, len(set.Entries), r.Table.Name, r.Table.Size)
	}
	return set, nil
}
