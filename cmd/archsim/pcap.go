package main

import (
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"archsim/arch"
	"archsim/components/pcap"
	"archsim/harness"
	"archsim/internal/mkdir"
)

// maxPcapMB bounds --pcap-max-mb (1 TiB): a typo cannot ask for more.
const maxPcapMB = 1 << 20

// pcapFlags are --pcap and --pcap-max-mb (archsim run and the main job).
type pcapFlags struct {
	dir   string
	maxMB int64
	made  []string // the directories check created (removed again if the command fails with them empty)
	flags *pflag.FlagSet
}

// discard removes the directory check made, if the command failed before
// writing a capture into it.
func (p *pcapFlags) discard() { mkdir.Undo(p.made) }

func (p *pcapFlags) add(f *pflag.FlagSet, what string) {
	p.flags = f
	f.StringVar(&p.dir, "pcap", "", "write a pcapng capture per switch port into this directory ("+what+"; Wireshark, tcpdump -r)")
	f.Int64Var(&p.maxMB, "pcap-max-mb", pcap.DefaultMaxBytes>>20, "size limit of the captures in MiB ("+what+"); frames past it are counted, not written")
}

// unused refuses --pcap-max-mb without --pcap (it would limit nothing).
func (p *pcapFlags) unused() error {
	if p.dir == "" && p.flags != nil && p.flags.Changed("pcap-max-mb") {
		return &exitError{code: 2, msg: "--pcap-max-mb limits the captures --pcap writes, and no --pcap is given"}
	}
	return nil
}

// check refuses a limit out of range and creates the directory (a
// directory that cannot be made is bad input, found before any run).
func (p *pcapFlags) check() error {
	if p.maxMB < 1 || p.maxMB > maxPcapMB {
		return &exitError{code: 2, msg: fmt.Sprintf("--pcap-max-mb %d: must be in [1, %d]", p.maxMB, maxPcapMB)}
	}
	if p.dir != "" {
		if old := firstCapture(p.dir); old != "" {
			// New captures next to an earlier command's would read as
			// one run's (a port the new run did not use keeps its old file).
			return &exitError{code: 2, msg: fmt.Sprintf("--pcap %s already holds captures (%s): give an empty or new directory", p.dir, old)}
		}
		made, err := mkdir.All(p.dir)
		if err != nil {
			return &exitError{code: 2, msg: "--pcap: " + oneLine(err.Error())}
		}
		p.made = made
	}
	return nil
}

func (p *pcapFlags) maxBytes() int64 { return p.maxMB << 20 }

// firstCapture is a .pcapng file under dir ("" if none, or no dir).
func firstCapture(dir string) string {
	found := ""
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ".pcapng") {
			found = path
			return fs.SkipAll
		}
		return nil
	})
	return found
}

// tapMain captures the main job's latency run: every front-panel port of
// the switch into DIR/<switch>-port<N>.pcapng. finish closes the files and
// prints a warning if the size limit left frames out; discard removes them
// after a failed run.
func (p *pcapFlags) tapMain(sim *harness.Sim, stderr io.Writer) (finish func() error, discard func(), err error) {
	c, err := pcap.New(p.dir, pcap.Options{MaxBytes: p.maxBytes()})
	if err != nil {
		return nil, nil, &exitError{code: 2, msg: "--pcap: " + oneLine(err.Error())}
	}
	prev := sim.Setup
	sim.Setup = func(sw arch.Switch) error {
		if prev != nil {
			if err := prev(sw); err != nil {
				return err
			}
		}
		t, ok := sw.(arch.Tappable)
		if !ok {
			return fmt.Errorf("--pcap: switch %s cannot be captured", sw.Name())
		}
		t.TapWire(c.Tap(sw.Name()))
		return nil
	}
	return func() error {
		s, err := c.Close()
		if err != nil {
			return &exitError{code: 1, msg: oneLine(err.Error())}
		}
		if w := s.Warning(); w != "" {
			fmt.Fprintln(stderr, "archsim: "+w)
		}
		return nil
	}, c.Discard, nil
}
