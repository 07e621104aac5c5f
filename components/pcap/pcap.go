// Package pcap writes packet captures of simulated switch ports: one
// pcapng file per port that carried a frame, readable by Wireshark and
// tcpdump, written by the package's own pcapng writer (pcapng.go: why not
// a library).
//
// archsim keeps only a frame's head bytes (packet.Packet.Head) and its
// total length (Len), so a record's captured bytes are the head and its
// original length is Len: a 1564-byte data frame of the hosts shows as
// "50 bytes captured, 1564 bytes on wire", a trimmed header as short on
// the wire too. Each file has three interfaces, so a frame's kind shows in
// Wireshark's frame.interface_name (tcpdump -r reads them as one):
//
//	0 <switch>.port<N>           data and control frames
//	1 <switch>.port<N>.trimmed   trimmed headers (TM trimming, or the caller's test)
//	2 <switch>.port<N>.mirror    mirror copies that are not trimmed headers
//
// Timestamps are simulated time from the Unix epoch in nanoseconds (the
// time a frame's first bit leaves the port). A capture writes at most
// MaxBytes (all its files together); frames past the limit are counted,
// not written, and Close reports them (and records them as each
// interface's if_dropped statistic) so a long run cannot fill the disk
// silently.
package pcap

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"archsim/components/packet"
	"archsim/internal/mkdir"
)

// DefaultMaxBytes is a capture's size limit when Options.MaxBytes is 0:
// 100 MiB, about a million 64-byte heads with their record overhead
// (assumed: big enough for the built-in scenarios' runs, small next to a
// disk).
const DefaultMaxBytes = 100 << 20

// recordOverhead is the bytes a pcapng Enhanced Packet Block adds to the
// captured bytes (28-byte header, 4-byte trailer; padding counted apart).
const recordOverhead = 32

// Interfaces of every file, by frame kind.
const (
	ifData = iota
	ifTrimmed
	ifMirror
	numIfs
)

var ifSuffix = [numIfs]string{"", ".trimmed", ".mirror"}
var ifDoc = [numIfs]string{"data and control frames", "trimmed headers", "mirror copies"}

// Options configure a capture.
type Options struct {
	// MaxBytes bounds the bytes written over all the capture's files
	// (0: DefaultMaxBytes).
	MaxBytes int64
	// Trimmed, if set, says whether a frame is a trimmed header (e.g. by
	// its NDP flags); frames the traffic manager trimmed count anyway.
	Trimmed func(*packet.Packet) bool
}

// Capture writes the frames of one simulation's switches into a
// directory. It is not safe for concurrent use: one per simulation (one
// serial engine).
type Capture struct {
	dir     string
	made    []string // the directories New created, deepest first
	created []string // the files the capture created
	opt     Options
	files   map[string]*portFile
	used    int64
	limited bool
	err     error
}

// portFile is one port's capture.
type portFile struct {
	path     string
	f        *os.File
	w        *ngWriter
	written  [numIfs]uint64
	skipped  [numIfs]uint64
	lastTime int64 // ns since the epoch
}

// Summary is what a capture wrote.
type Summary struct {
	Files   []string // in name order
	Frames  int64    // frames written
	Skipped int64    // frames past MaxBytes, not written
	Bytes   int64    // bytes written (records and file headers)
	Max     int64    // the limit
}

// New starts a capture into dir (created if missing).
func New(dir string, opt Options) (*Capture, error) {
	if opt.MaxBytes < 0 {
		return nil, fmt.Errorf("pcap size limit %d: must be ≥ 0", opt.MaxBytes)
	}
	if opt.MaxBytes == 0 {
		opt.MaxBytes = DefaultMaxBytes
	}
	made, err := mkdir.All(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot create %s: %v", dir, err)
	}
	return &Capture{dir: dir, made: made, opt: opt, files: map[string]*portFile{}}, nil
}

// Tap is the wire tap of one switch: a frame leaving a port is written to
// <dir>/<switch>-port<N>.pcapng (the file is created at its first frame).
func (c *Capture) Tap(switchName string) func(port int, pkt *packet.Packet, startPs int64) {
	base := fileSafe(switchName)
	return func(port int, pkt *packet.Packet, startPs int64) {
		c.write(base, switchName, port, pkt, startPs)
	}
}

// fileSafe turns a component name (Tofino.Pipe[0]) into a file name part.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, s)
}

func (c *Capture) kind(pkt *packet.Packet) int {
	switch {
	case pkt.Trimmed || (c.opt.Trimmed != nil && c.opt.Trimmed(pkt)):
		return ifTrimmed
	case pkt.Mirrored:
		return ifMirror
	}
	return ifData
}

func (c *Capture) write(base, swName string, port int, pkt *packet.Packet, startPs int64) {
	if c.err != nil {
		return
	}
	key := fmt.Sprintf("%s-port%d", base, port)
	pf := c.files[key]
	k := c.kind(pkt)
	head := pkt.Head
	if len(head) > pkt.Len && pkt.Len >= 0 {
		head = head[:pkt.Len]
	}
	size := int64(recordOverhead + (len(head)+3)&^3)
	if pf == nil {
		// A new file: its section and interface blocks, and the
		// statistics blocks Close writes, count against the limit too.
		size += fileHeaderBytes(swName, port) + numIfs*statsBlockBytes
	}
	if c.limited || c.used+size > c.opt.MaxBytes {
		c.limited = true
		if pf == nil {
			pf = &portFile{}
			c.files[key] = pf
		}
		pf.skipped[k]++
		return
	}
	if pf == nil {
		var err error
		if pf, err = c.open(key, swName, port); err != nil {
			c.err = err
			return
		}
		c.files[key] = pf
	}
	ts := startPs / 1000
	if err := pf.w.writePacket(k, ts, head, max(pkt.Len, len(head))); err != nil {
		c.err = fmt.Errorf("%s: %v", pf.path, err)
		return
	}
	pf.written[k]++
	pf.lastTime = ts
	c.used += size
}

func (c *Capture) open(key, swName string, port int) (*portFile, error) {
	path := filepath.Join(c.dir, key+".pcapng")
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("pcap: %v", err)
	}
	w, err := startFile(f, swName, port)
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	c.created = append(c.created, path)
	return &portFile{path: path, f: f, w: w}, nil
}

// startFile writes a port file's section and interface blocks to f.
func startFile(f io.Writer, swName string, port int) (*ngWriter, error) {
	name := fmt.Sprintf("%s.port%d", swName, port)
	w, err := newNgWriter(f, "archsim (simulated time)")
	for k := 0; k < numIfs && err == nil; k++ {
		err = w.addInterface(ngInterface{Name: name + ifSuffix[k], Description: ifDoc[k]})
	}
	return w, err
}

// fileHeaderBytes is what startFile writes for the port.
func fileHeaderBytes(swName string, port int) int64 {
	w, _ := startFile(io.Discard, swName, port)
	return w.bytes
}

// Discard takes back a capture of a run that failed (or of a command
// that failed after it): it closes the files still open, removes every
// file it created and the directories New made (each if then empty), and
// nothing else. It may follow Close.
func (c *Capture) Discard() {
	for _, pf := range c.files {
		if pf.f != nil {
			pf.f.Close()
		}
	}
	c.files = nil
	for _, p := range c.created {
		os.Remove(p)
	}
	c.created = nil
	mkdir.Undo(c.made)
	c.made = nil
}

// Close finishes every file (with each interface's frame counts as
// statistics) and says what was written. Frames past the size limit are
// in Summary.Skipped; a write error is returned.
func (c *Capture) Close() (Summary, error) {
	s := Summary{Bytes: c.used, Max: c.opt.MaxBytes}
	keys := make([]string, 0, len(c.files))
	for k := range c.files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	err := c.err
	for _, k := range keys {
		pf := c.files[k]
		for i := range numIfs {
			s.Frames += int64(pf.written[i])
			s.Skipped += int64(pf.skipped[i])
		}
		if pf.w == nil { // every frame of the port came past the limit
			continue
		}
		s.Files = append(s.Files, pf.path)
		for i := range numIfs {
			if e := pf.w.writeStats(i, pf.lastTime, pf.written[i]+pf.skipped[i], pf.skipped[i]); e != nil && err == nil {
				err = fmt.Errorf("%s: %v", pf.path, e)
			}
		}
		if e := pf.w.flush(); e != nil && err == nil {
			err = fmt.Errorf("%s: %v", pf.path, e)
		}
		if e := pf.f.Close(); e != nil && err == nil {
			err = fmt.Errorf("%s: %v", pf.path, e)
		}
	}
	c.files = nil
	return s, err
}

// Warning is the line to print when frames were left out ("" if none).
func (s Summary) Warning() string {
	if s.Skipped == 0 {
		return ""
	}
	return fmt.Sprintf("pcap: size limit %d MiB reached: %d frames not captured (raise --pcap-max-mb)", s.Max>>20, s.Skipped)
}
