package tofino

import (
	"fmt"
	"io"
	"strings"

	"archsim/arch/tofino/spec"
	"archsim/components/stats"
	"archsim/internal/tables"
)

func pct(v float64) string { return fmt.Sprintf("%.1f %%", v) }

// writePHV prints the PHV containers each thread uses, per width and kind,
// as a share of the chip's.
func (r *Report) writePHV(w io.Writer) {
	u := r.PHV
	tag := u.Capacity.Tagalong.Total() > 0
	note := ""
	if tag {
		note = "; tagalong containers carry fields the MAU never touches"
	}
	fmt.Fprintf(w, "PHV containers per thread (used / the chip's%s):\n", note)
	cols := []string{"Thread"}
	for _, b := range spec.PHVBits {
		cols = append(cols, fmt.Sprintf("%d-bit", b))
	}
	if tag {
		for _, b := range spec.PHVBits {
			cols = append(cols, fmt.Sprintf("Tagalong %d-bit", b))
		}
	}
	cols = append(cols, "Containers", "Fields + POV bits", "Split to fit")
	t := tables.New(w, cols...)
	cell := func(used, capacity int) string {
		if capacity == 0 {
			return fmt.Sprintf("%d / 0", used)
		}
		return fmt.Sprintf("%d / %d (%.1f %%)", used, capacity, 100*float64(used)/float64(capacity))
	}
	total := u.Capacity.Normal.Total() + u.Capacity.Tagalong.Total()
	for _, g := range []spec.Gress{spec.Ingress, spec.Egress} {
		th := u.Thread(g)
		row := []string{g.String()}
		for i := range spec.PHVBits {
			row = append(row, cell(th.Normal.Of(i), u.Capacity.Normal.Of(i)))
		}
		if tag {
			for i := range spec.PHVBits {
				row = append(row, cell(th.Tagalong.Of(i), u.Capacity.Tagalong.Of(i)))
			}
		}
		row = append(row, cell(th.Containers, total), fmt.Sprintf("%d + %d (%d bits)", th.Fields, th.POVBits, th.FieldBits), fmt.Sprint(th.Split))
		t.Row(row...)
	}
	t.Render()
}

// WriteTables prints the placement stage by stage, the resource totals in
// bf-p4c's columns, the MAU timing and the measured latency.
func (r *Report) WriteTables(w io.Writer) {
	p := r.place
	fmt.Fprintf(w, "%s on %s (%s, %.0f MHz): fits in %d of %d MAU stages\n", r.Program, r.Chip, r.ProgramFile, r.ClockMHz, r.StagesUsed, r.StagesTotal)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Placement (each logical table, the stage it landed in, and the dependency or resource that put it there):")
	t := tables.New(w, "Stage", "Thread", "Logical table", "Kind", "Line", "Register actions / meters", "Why this stage")
	for _, st := range r.PerStage {
		for g, lts := range [][]LTReport{st.Ingress, st.Egress} {
			for _, lt := range lts {
				u := strings.Join(lt.Uses, ", ")
				if u == "" {
					u = "-"
				}
				t.Row(fmt.Sprint(st.Stage), []string{"ingress", "egress"}[g], lt.Name, lt.Kind, fmt.Sprint(lt.Line), u, lt.Why)
			}
		}
	}
	t.Render()
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Stage memories and per-stage use:")
	t = tables.New(w, "Stage", "Stateful objects", "SRAM", "TCAM", "Map RAM", "Hash bits", "VLIW rows", "Xbar B", "SALU", "Gateways", "Logical IDs", "Dep in/eg", "Cycles in/eg")
	for _, st := range r.PerStage {
		if len(st.Ingress)+len(st.Egress) == 0 {
			continue
		}
		objs := strings.Join(st.Objects, ", ")
		if objs == "" {
			objs = "-"
		}
		res := st.Resources
		t.Row(fmt.Sprint(st.Stage), objs, fmt.Sprint(res.SRAM), fmt.Sprint(res.TCAM), fmt.Sprint(res.MapRAM),
			fmt.Sprint(res.HashBits), fmt.Sprint(res.VLIW), fmt.Sprint(res.ExactXbar+res.TernaryXbar), fmt.Sprint(res.MeterALU),
			fmt.Sprint(res.Gateways), fmt.Sprint(res.LogicalIDs), st.Dependency[0]+"/"+st.Dependency[1],
			fmt.Sprintf("%d/%d", st.Cycles.Ingress, st.Cycles.Egress))
	}
	t.Render()
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Resources as a share of the chip (bf-p4c's mau.resources.log columns):")
	u, cp, n := r.Units, r.Capacity, r.StagesTotal
	t = tables.New(w, "Stages", "SRAM", "TCAM", "Hash bits", "VLIW actions", "Exact+Ternary match crossbar", "Stateful+Meter ALUs")
	t.Row(pct(r.Resources.Stages), pct(r.Resources.SRAM), pct(r.Resources.TCAM), pct(r.Resources.HashBits),
		pct(r.Resources.VLIW), pct(r.Resources.Crossbar), pct(r.Resources.SALU))
	t.Row(fmt.Sprintf("%d / %d", r.StagesUsed, n), fmt.Sprintf("%d / %d", u.SRAM, n*cp.SRAM), fmt.Sprintf("%d / %d", u.TCAM, n*cp.TCAM),
		fmt.Sprintf("%d / %d", u.HashBits, n*cp.HashBits), fmt.Sprintf("%d / %d", u.VLIW, n*cp.VLIW),
		fmt.Sprintf("%d / %d", u.ExactXbar+u.TernaryXbar, n*(cp.ExactXbar+cp.TernaryXbar)), fmt.Sprintf("%d / %d", u.MeterALU, n*cp.MeterALU))
	t.Render()
	if r.PHV != nil {
		fmt.Fprintln(w)
		r.writePHV(w)
	}
	if pu := r.Parser; pu != nil {
		fmt.Fprintf(w, "\nParser TCAM: at least %d of the %d rows of each gress's parser (one per state transition)\n", pu.TCAMRows, pu.Capacity)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "MAU pipeline length from the stage dependencies: ingress %d cycles, egress %d cycles", r.MAUCycles.Ingress, r.MAUCycles.Egress)
	if p != nil && p.RawMAU[1] < p.MAUCycles[1] {
		fmt.Fprintf(w, " (egress padded from %d to the chip's minimum)", p.RawMAU[1])
	}
	fmt.Fprintln(w)
	if r.Latency == nil {
		return
	}
	s := r.Simulation
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Measured latency (%d packets offered, %d delivered; parser + MAU + deparser + issue wait):\n", s.Offered, s.Delivered)
	t = tables.New(w, "Thread", "Packets", "Unit", "Min", "Mean", "p99", "Max")
	row := func(name string, pk int, unit string, x stats.Summary) {
		if x.N == 0 {
			t.Row(name, fmt.Sprint(pk), unit, "-", "-", "-", "-")
			return
		}
		t.Row(name, fmt.Sprint(pk), unit, fmt.Sprintf("%.1f", x.Min), fmt.Sprintf("%.1f", x.Mean), fmt.Sprintf("%.1f", x.P99), fmt.Sprintf("%.1f", x.Max))
	}
	row("ingress", s.Ingress.Packets, "ns", r.Latency.IngressNs)
	row("ingress", s.Ingress.Packets, "cycles", r.Latency.IngressCycles)
	row("egress", s.Egress.Packets, "ns", r.Latency.EgressNs)
	row("egress", s.Egress.Packets, "cycles", r.Latency.EgressCycles)
	t.Render()
	if b := s.TM.BypassedEgress; b > 0 {
		fmt.Fprintf(w, "Egress pipeline: %d of the %d packets the traffic manager sent out skipped it (the program set std.bypass_egress), so egress counts fewer packets than were delivered\n", b, s.TM.Dequeued)
	}
	if len(s.Drops) > 0 {
		var parts []string
		for _, d := range s.Drops {
			parts = append(parts, fmt.Sprintf("%s: %d", d.Reason, d.Packets))
		}
		fmt.Fprintf(w, "Dropped: %s\n", strings.Join(parts, "; "))
	}
	tm := s.TM
	fmt.Fprintf(w, "Traffic manager: %d enqueued, %d queue drops, %d shared-buffer drops, %d deflected (%d dropped at the deflect queue), %d drop mirrors, %d mirror copies, %d multicast copies\n",
		tm.Enqueued, tm.QueueDrops, tm.BufferDrops, tm.Deflected, tm.DeflectDrops, tm.DropMirrors, tm.MirrorCopies, tm.MulticastCopies)
	fmt.Fprintf(w, "Simulation: %d Akita events, %.1f events per offered packet, %.0f ns simulated, seed %d\n",
		s.Events, float64(s.Events)/float64(max(1, s.Offered)), s.SimulatedNs, r.Seed)
}
