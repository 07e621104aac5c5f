package programs

import "fmt"

// PktgenTrigger is what starts a packet-generator application (Tofino's
// pktgen trigger types, bf-drivers bf_pktgen_trigger_type_e; tofino-facts
// §1).
type PktgenTrigger string

// The trigger types archsim models. Tofino's recirculation-pattern trigger
// and Tofino 2's deparser (MAU) trigger are not modelled.
const (
	TriggerPeriodic PktgenTrigger = "periodic" // a timer that fires every TimerNs
	TriggerOneShot  PktgenTrigger = "one_shot" // a timer that fires once, TimerNs after enabling
	TriggerPortDown PktgenTrigger = "port_down"
)

// PktgenHeaderBytes is the length of the header Tofino's packet generator
// writes at the start of every generated frame (pipe, app id, batch id or
// port, packet id: TNA pktgen_timer_header_t / pktgen_port_down_header_t;
// bf-drivers pipe_mgr_tof_pktgen.c "Hardware will add 6 bytes of pgen
// header").
const PktgenHeaderBytes = 6

// PktgenApp is a packet-generator application as the program's control
// plane sets it up: what triggers it, where it injects, the packet
// template it holds in the generator's buffer, and its batches. The
// program description declares it (like the tm: section, it is setup the
// program expects); a chip with a packet generator runs it, checking it
// against the chip's limits.
type PktgenApp struct {
	Name    string
	App     int // application id; -1: the next free one of its pipe
	Trigger PktgenTrigger
	Port    int   // device port the packets enter ingress on (a packet-generator port)
	TimerNs int64 // timer triggers: the timer
	Batches int   // batches per trigger
	Packets int   // packets per batch
	IBGNs   int64 // inter-batch gap: batch starts this far apart
	IPGNs   int64 // inter-packet gap: packets of a batch start this far apart
	Offset  int   // template offset in the buffer; -1: the next free aligned one
	Length  int   // frame bytes the program sees (without FCS)
	// Header: the generator writes its 6-byte header over the frame's
	// first bytes (what Tofino does; the buffer then holds Length-6
	// bytes, the template from its 7th byte on, as pie-for-tofino's
	// configure_pktgen_sampling_flow.py writes it). false keeps the
	// template's own first bytes (not hardware behaviour).
	Header   bool
	Template *FlowTemplate // the frame's headers and their values
	Pos      Pos
}

// BufferBytes is how much of the generator's buffer the template takes.
func (a *PktgenApp) BufferBytes() int {
	if a.Header {
		return a.Length - PktgenHeaderBytes
	}
	return a.Length
}

// Timer reports whether a timer triggers the application.
func (a *PktgenApp) Timer() bool { return a.Trigger == TriggerPeriodic || a.Trigger == TriggerOneShot }

// loadPktgen reads the packet-generator applications: a list of
// {name, trigger, port, timer_ns, batches, packets, ibg_ns, ipg_ns,
// offset, length, header, headers, app}. It checks the format; the chip
// checks its limits (ports, application count, buffer) when it runs them.
func (l *loader) loadPktgen(n node) error {
	items, err := n.items()
	if err != nil {
		return err
	}
	names := map[string]bool{}
	for _, it := range items {
		f, err := it.fields("name", "app", "trigger", "port", "timer_ns", "batches", "packets", "ibg_ns", "ipg_ns", "offset", "length", "header", "headers")
		if err != nil {
			return err
		}
		a := &PktgenApp{App: -1, Batches: 1, Packets: 1, Offset: -1, Header: true, Pos: it.pos()}
		nn, ok := f["name"]
		if !ok {
			return it.errf("pktgen: missing name")
		}
		if a.Name, err = nn.str(); err != nil {
			return err
		}
		if names[a.Name] {
			return nn.errf("pktgen: application %q declared twice", a.Name)
		}
		names[a.Name] = true
		tn, ok := f["trigger"]
		if !ok {
			return it.errf("pktgen %s: missing trigger (periodic, one_shot or port_down)", a.Name)
		}
		ts, err := tn.str()
		if err != nil {
			return err
		}
		switch PktgenTrigger(ts) {
		case TriggerPeriodic, TriggerOneShot, TriggerPortDown:
			a.Trigger = PktgenTrigger(ts)
		default:
			return tn.errf("pktgen %s: trigger %q: want periodic, one_shot or port_down", a.Name, ts)
		}
		// intKey reads an integer key into v if present, checking v >= lo.
		intKey := func(key string, v *int64, lo int64, required bool) error {
			kn, ok := f[key]
			if !ok {
				if required {
					return it.errf("pktgen %s: missing %s", a.Name, key)
				}
				return nil
			}
			x, err := l.consts.intValue(kn)
			if err != nil {
				return err
			}
			if x < lo {
				return kn.errf("pktgen %s: %s must be ≥ %d, got %d", a.Name, key, lo, x)
			}
			*v = x
			return nil
		}
		var app, port, batches, packets, offset, length int64 = -1, 0, 1, 1, -1, 0
		for _, k := range []struct {
			key      string
			v        *int64
			lo       int64
			required bool
		}{
			{"app", &app, 0, false}, {"port", &port, 0, true}, {"timer_ns", &a.TimerNs, 1, a.Timer()},
			{"batches", &batches, 1, false}, {"packets", &packets, 1, false},
			{"ibg_ns", &a.IBGNs, 0, false}, {"ipg_ns", &a.IPGNs, 0, false},
			{"offset", &offset, 0, false}, {"length", &length, 1, true},
		} {
			if err := intKey(k.key, k.v, k.lo, k.required); err != nil {
				return err
			}
		}
		if a.Trigger == TriggerPortDown && f["timer_ns"].n != nil {
			return f["timer_ns"].errf("pktgen %s: a port_down application has no timer", a.Name)
		}
		a.App, a.Port, a.Batches, a.Packets, a.Offset, a.Length = int(app), int(port), int(batches), int(packets), int(offset), int(length)
		if a.Length > 16384 {
			return f["length"].errf("pktgen %s: length %d out of range 1..16384", a.Name, a.Length)
		}
		if hn, ok := f["header"]; ok {
			switch hn.n.Value {
			case "true":
				a.Header = true
			case "false":
				a.Header = false
			default:
				return hn.errf("pktgen %s: header must be true or false, got %q", a.Name, hn.n.Value)
			}
		}
		if a.Header && a.Length < PktgenHeaderBytes {
			return f["length"].errf("pktgen %s: length %d is shorter than the %d-byte generator header", a.Name, a.Length, PktgenHeaderBytes)
		}
		hn, ok := f["headers"]
		if !ok {
			return it.errf("pktgen %s: missing headers (the template's headers, in wire order)", a.Name)
		}
		a.Template = &FlowTemplate{Name: a.Name, Ports: []int{a.Port}, Sizes: []int{a.Length}, Weight: 1, Values: map[*Field][]int64{}, Pos: a.Pos}
		if err := l.templateHeaders(a.Template, hn); err != nil {
			return err
		}
		l.prog.Pktgen = append(l.prog.Pktgen, a)
	}
	return nil
}

// String describes an application in one line.
func (a *PktgenApp) String() string {
	s := fmt.Sprintf("%s: %s on port %d", a.Name, a.Trigger, a.Port)
	if a.Timer() {
		s += fmt.Sprintf(" every %d ns", a.TimerNs)
		if a.Trigger == TriggerOneShot {
			s = fmt.Sprintf("%s: one_shot on port %d after %d ns", a.Name, a.Port, a.TimerNs)
		}
	}
	return s + fmt.Sprintf(", %d x %d packets of %d B", a.Batches, a.Packets, a.Length)
}
