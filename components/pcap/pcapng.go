package pcap

import (
	"bufio"
	"encoding/binary"
	"io"
)

// A pcapng writer (IETF draft-ietf-opsawg-pcapng, the format Wireshark and
// tcpdump read): one section, its interfaces, Enhanced Packet Blocks and,
// at the end, Interface Statistics Blocks, little-endian.
//
// Why not gopacket's pcapgo, which this package used before: importing it
// links gopacket/layers, whose package-level protocol tables cost every
// archsim process about 3.6 ms of start-up (a third of it) and about 7 MB
// of pointer-holding globals that every garbage collection scans, whether
// or not a capture is taken. The blocks a capture needs are few and
// fixed; the tests read the files back with gopacket's reader (a test
// dependency only) and with tcpdump where it is installed.

// Block types and option codes used here.
const (
	blockSHB = 0x0A0D0D0A
	blockIDB = 0x00000001
	blockISB = 0x00000005
	blockEPB = 0x00000006

	optEnd       = 0
	optSHBUserAp = 4 // shb_userappl
	optIfName    = 2 // if_name
	optIfDesc    = 3 // if_description
	optIfTsresol = 9 // if_tsresol
	optISBRecv   = 4 // isb_ifrecv
	optISBDrop   = 5 // isb_ifdrop

	linkTypeEthernet = 1
	byteOrderMagic   = 0x1A2B3C4D
)

// ngWriter writes one pcapng section.
type ngWriter struct {
	w     *bufio.Writer
	buf   []byte // the block being built
	bytes int64  // written (buffered included)
}

// statsBlockBytes is the size of an Interface Statistics Block as
// writeStats writes it: block header 8, interface 4, timestamp 8, two
// 8-byte options of 4 + 8 each, end of options 4, trailing length 4.
const statsBlockBytes = 8 + 4 + 8 + 2*(4+8) + 4 + 4

// ngInterface describes an interface (every one is Ethernet with
// nanosecond timestamps).
type ngInterface struct {
	Name, Description string
}

// newNgWriter writes the section header with the application's name.
func newNgWriter(w io.Writer, application string) (*ngWriter, error) {
	n := &ngWriter{w: bufio.NewWriter(w)}
	n.begin(blockSHB)
	n.u32(byteOrderMagic)
	n.u16(1) // major version
	n.u16(0) // minor version
	n.u64(^uint64(0))
	n.option(optSHBUserAp, []byte(application))
	n.u32(0) // opt_endofopt
	return n, n.end()
}

// addInterface writes an Interface Description Block; interfaces are
// numbered from 0 in the order they are added.
func (n *ngWriter) addInterface(intf ngInterface) error {
	n.begin(blockIDB)
	n.u16(linkTypeEthernet)
	n.u16(0) // reserved
	n.u32(0) // snaplen: no limit
	n.option(optIfName, []byte(intf.Name))
	n.option(optIfDesc, []byte(intf.Description))
	n.option(optIfTsresol, []byte{9}) // 10^-9 s
	n.u32(0)
	return n.end()
}

// writePacket writes an Enhanced Packet Block: data captured of a frame
// of wireLen bytes on interface intf at ns nanoseconds since the epoch.
func (n *ngWriter) writePacket(intf int, ns int64, data []byte, wireLen int) error {
	n.begin(blockEPB)
	n.u32(uint32(intf))
	n.u32(uint32(uint64(ns) >> 32))
	n.u32(uint32(ns))
	n.u32(uint32(len(data)))
	n.u32(uint32(wireLen))
	n.data(data)
	return n.end()
}

// writeStats writes an Interface Statistics Block for interface intf at
// ns: frames received (offered to the capture) and dropped (not written).
func (n *ngWriter) writeStats(intf int, ns int64, received, dropped uint64) error {
	n.begin(blockISB)
	n.u32(uint32(intf))
	n.u32(uint32(uint64(ns) >> 32))
	n.u32(uint32(ns))
	var v [8]byte
	binary.LittleEndian.PutUint64(v[:], received)
	n.option(optISBRecv, v[:])
	binary.LittleEndian.PutUint64(v[:], dropped)
	n.option(optISBDrop, v[:])
	n.u32(0)
	return n.end()
}

// flush writes what is buffered.
func (n *ngWriter) flush() error { return n.w.Flush() }

// begin starts a block: its type and a length filled in by end.
func (n *ngWriter) begin(typ uint32) {
	n.buf = n.buf[:0]
	n.u32(typ)
	n.u32(0)
}

// end pads the block to 32 bits, writes its total length at both ends and
// the block to the file.
func (n *ngWriter) end() error {
	total := uint32(len(n.buf) + 4)
	binary.LittleEndian.PutUint32(n.buf[4:], total)
	n.u32(total)
	_, err := n.w.Write(n.buf)
	n.bytes += int64(len(n.buf))
	return err
}

func (n *ngWriter) u16(v uint16) { n.buf = binary.LittleEndian.AppendUint16(n.buf, v) }
func (n *ngWriter) u32(v uint32) { n.buf = binary.LittleEndian.AppendUint32(n.buf, v) }
func (n *ngWriter) u64(v uint64) { n.buf = binary.LittleEndian.AppendUint64(n.buf, v) }

// data appends b padded to 32 bits.
func (n *ngWriter) data(b []byte) {
	n.buf = append(n.buf, b...)
	for len(n.buf)%4 != 0 {
		n.buf = append(n.buf, 0)
	}
}

// option appends an option: code, length, value padded to 32 bits.
func (n *ngWriter) option(code uint16, v []byte) {
	n.u16(code)
	n.u16(uint16(len(v)))
	n.data(v)
}
