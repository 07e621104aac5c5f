package experiments

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"archsim/arch"
	"archsim/components/hosts"
	"archsim/components/packet"
	"archsim/components/pcap"
	"archsim/internal/mkdir"
)

// isTrimmedHeader reports whether a frame is a trimmed NDP header (the
// hosts' wire format marks them with FlagTrimmed).
func isTrimmedHeader(p *packet.Packet) bool {
	h, ok := hosts.Decode(p.Head)
	return ok && h.Flags&hosts.FlagTrimmed != 0
}

// runFileName names a run's files and directories:
// <variant>[-<var>=<value>], with characters a file name should not hold
// as '_'.
func (s *Scenario) runFileName(spec runSpec) string {
	name := spec.variant.Name
	if spec.value != "" {
		name += "-" + s.Sweep.Var + "=" + spec.value
	}
	return fileSafe(name)
}

// fileSafe replaces the characters a file name should not hold with '_'.
func fileSafe(name string) string {
	return strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._=-", c) {
			return c
		}
		return '_'
	}, name)
}

// pcapDir is a run's capture directory: <dir>/<variant>[-<var>=<value>].
func (s *Scenario) pcapDir(spec runSpec) string { return filepath.Join(spec.pcap, s.runFileName(spec)) }

// recordsPath is a run's records file:
// <dir>/packets-<variant>[-<var>=<value>].csv.
func (s *Scenario) recordsPath(spec runSpec) string {
	return filepath.Join(spec.records, "packets-"+s.runFileName(spec)+".csv")
}

// runOutputs are the files a run writes as it goes (--pcap, --records).
type runOutputs struct {
	capture *pcap.Capture
	records string   // the records file ("": none)
	made    []string // directories made for it, deepest first
}

// discardOutputs takes back what runs wrote as they went, and only that:
// first every file (so that a directory one run made and another wrote
// into is empty), then the directories they made.
func discardOutputs(outs []*runOutputs) {
	for _, o := range outs {
		if o != nil && o.records != "" {
			os.Remove(o.records)
		}
	}
	for _, o := range outs {
		if o != nil && o.capture != nil {
			o.capture.Discard()
		}
	}
	for _, o := range outs {
		if o != nil {
			mkdir.Undo(o.made)
		}
	}
}

// DiscardOutputs takes back the captures and records the result's runs
// wrote (a command that fails after its runs finished, e.g. writing its
// CSVs, leaves nothing half-done).
func (r *Result) DiscardOutputs() {
	var outs []*runOutputs
	for _, run := range r.Runs {
		if run != nil {
			outs = append(outs, run.outputs)
		}
	}
	discardOutputs(outs)
}

// startPcap taps every port of every switch of a run into its capture
// directory (nil without --pcap).
func (s *Scenario) startPcap(spec runSpec, net *network) (*pcap.Capture, error) {
	if spec.pcap == "" {
		return nil, nil
	}
	c, err := pcap.New(s.pcapDir(spec), pcap.Options{MaxBytes: spec.pcapMax, Trimmed: isTrimmedHeader})
	if err != nil {
		return nil, err
	}
	spec.out.capture = c
	for _, sw := range net.switches {
		t, ok := sw.(arch.Tappable)
		if !ok {
			return nil, fmt.Errorf("--pcap: switch %s cannot be captured", sw.Name())
		}
		t.TapWire(c.Tap(sw.Name()))
	}
	return c, nil
}

// finishPcap closes a run's capture (nil: none) and keeps its warning.
func (s *Scenario) finishPcap(spec runSpec, c *pcap.Capture, r *Run) error {
	if c == nil {
		return nil
	}
	sum, err := c.Close()
	if err != nil {
		return err
	}
	if w := sum.Warning(); w != "" {
		r.pcapNote = s.pcapDir(spec) + ": " + w
	}
	return nil
}

// PcapWarnings are the runs' capture warnings (frames left out at the
// size limit), in run order.
func (r *Result) PcapWarnings() []string {
	var out []string
	for _, run := range r.Runs {
		if run.pcapNote != "" {
			out = append(out, run.pcapNote)
		}
	}
	return out
}
