package trio

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"archsim/components/stats"
	"archsim/internal/tables"
)

func sum(s stats.Summary, unit string) string {
	if s.N == 0 {
		return "- (none)"
	}
	return fmt.Sprintf("%.1f / %.1f / %.1f / %.1f %s", s.Min, s.Mean, s.P99, s.Max, unit)
}

// WriteTables prints the lowering, the memory placement, the measured
// latency and the packet rate.
func (r *Report) WriteTables(w io.Writer) {
	fmt.Fprintf(w, "%s on %s (%s, %.0f MHz): lowered to %d micro-instructions (static)\n\n", r.Program, r.Chip, r.ProgramFile, r.ClockMHz, r.Instructions.Static)
	fmt.Fprintln(w, "Micro-instructions by block (static):")
	t := tables.New(w, "Block", "Instructions")
	for _, b := range r.Instructions.Blocks {
		t.Row(b.Name, fmt.Sprint(b.Instr))
	}
	t.Render()
	fmt.Fprintln(w, "\nExternal transactions (static sites):")
	t = tables.New(w, "Kind", "Sites")
	for _, k := range sortedKeys(r.XTXNSites) {
		t.Row(k, fmt.Sprint(r.XTXNSites[k]))
	}
	t.Render()
	m := r.Memory
	fmt.Fprintf(w, "\nLocal storage per thread: %d B of %d B local memory (head %d B), %d of 32 registers (%d metadata bits)\n",
		m.LMEMBytes, m.LMEMCapacity, m.HeadBytes, m.RegistersUsed, m.MetadataBits)
	fmt.Fprintf(w, "Shared memory: %d B in on-chip SRAM, %d B in DRAM\n", m.SRAMBytes, m.DRAMBytes)
	if len(m.Objects) > 0 {
		t = tables.New(w, "Object", "Kind", "Bytes", "Entry B", "Memory")
		for _, o := range m.Objects {
			t.Row(o.Name, o.Kind, fmt.Sprint(o.Bytes), fmt.Sprint(o.EntryBytes), o.Memory)
		}
		t.Render()
	}
	if len(r.NonAtomic) > 0 {
		fmt.Fprintf(w, "Not atomic across threads (read, compute, write): %s\n", strings.Join(r.NonAtomic, ", "))
	}
	for _, n := range r.Notes {
		fmt.Fprintln(w, "Note:", n)
	}
	if r.Latency == nil {
		return
	}
	s := r.Simulation
	fmt.Fprintf(w, "\nMeasured (%d packets offered, %d delivered; dispatch to reorder release):\n", s.Offered, s.Delivered)
	t = tables.New(w, "Gress", "Latency ns min / mean / p99 / max", "Instructions per packet", "Transactions per packet")
	for _, g := range []string{"ingress", "egress"} {
		in, ok := r.Instructions.PerPacket[g]
		if !ok {
			continue
		}
		lat := r.Latency.IngressNs
		if g == "egress" {
			lat = r.Latency.EgressNs
		}
		var xs []string
		for _, k := range sortedKeys(r.XTXNPerPkt[g]) {
			xs = append(xs, fmt.Sprintf("%s %.2f", k, r.XTXNPerPkt[g][k]))
		}
		t.Row(g, sum(lat, ""), fmt.Sprintf("%.1f (max %.0f)", in.Mean, in.Max), strings.Join(xs, ", "))
	}
	t.Render()
	if len(s.Drops) > 0 {
		var ds []string
		for _, d := range s.Drops {
			ds = append(ds, fmt.Sprintf("%s: %d", d.Reason, d.Packets))
		}
		fmt.Fprintf(w, "Dropped: %s\n", strings.Join(ds, ", "))
	}
	if pb := s.PortsBeyond; pb != nil {
		var used []string
		if len(pb.In) > 0 {
			used = append(used, "packets entered on "+portRanges(pb.In))
		}
		if len(pb.Out) > 0 {
			used = append(used, "left on "+portRanges(pb.Out))
		}
		fmt.Fprintf(w, "Ports beyond this PFE's %d (0-%d): %s (the program's traffic and tables name them); the model serves each as one more port at the port rate\n",
			pb.Ports, pb.Ports-1, strings.Join(used, " and "))
	}
	if tm := r.Timers; tm != nil {
		fmt.Fprintf(w, "Timer threads: %d runs, %.0f ns mean (p99 %.0f), %.0f instructions each\n", tm.Runs, tm.DurationNs.Mean, tm.DurationNs.P99, tm.Instructions.Mean)
	}
	if rt := r.Rate; rt != nil {
		fmt.Fprintf(w, "\nPacket rate (%d packets offered at once):\n", rt.Packets)
		t = tables.New(w, "Sustainable Mpps", "Line rate Mpps", "Sustains line rate", "Binding limit", "PPE issue", "Threads", "RMW engines", "Threads for line rate")
		t.Row(fmt.Sprintf("%.1f", rt.RateMpps), fmt.Sprintf("%.1f", rt.LineMpps), fmt.Sprint(rt.Sustains), rt.Binding,
			fmt.Sprintf("%.0f %%", 100*rt.PPEIssue), fmt.Sprintf("%.0f %%", 100*rt.Threads), fmt.Sprintf("%.0f %%", 100*rt.RMWEngines),
			fmt.Sprintf("%.0f of %d", rt.ThreadsFor, rt.Available))
		t.Render()
	}
	fmt.Fprintf(w, "Simulation: %d Akita events, %.1f events per offered packet, %.0f ns simulated, seed %d\n", s.Events, s.EventsPerPk, s.SimulatedNs, r.Seed)
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// portRanges writes sorted port numbers with runs as ranges: 4-7, 9.
func portRanges(ports []int) string {
	var parts []string
	for i := 0; i < len(ports); {
		j := i
		for j+1 < len(ports) && ports[j+1] == ports[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", ports[i], ports[j]))
		} else {
			parts = append(parts, fmt.Sprint(ports[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}
