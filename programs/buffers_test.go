package programs

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"
)

const bufProgram = `program: buf
headers:
  eth: {dst: 48, src: 48, etype: 16}
  tag: {seq: 16}
metadata: {n: 32, h: 1}
parser:
  start: s
  states:
    s:
      extract: eth
      select: eth.etype
      transitions: {0x88b5: tag, default: accept}
    tag:
      extract: tag
packet_buffers:
  keep: {slots: 4}
ingress: |
  std.egress_port = 1
  if eth.etype == 1 {
    tag.setValid()
    tag.seq = bit16(eth.src)
    eth.etype = 0x88b5
    store(keep, eth.src)
    tag.seq = 0
    drop()
  } else if eth.etype == 2 {
    meta.h = held(keep, eth.src)
    meta.n = buffered(keep)
    std.egress_port = 3
    resend(keep, eth.src)
  } else {
    release(keep, eth.src)
  }
`

// bufRun runs the program's ingress on a 100-byte frame (its first 14
// bytes held) of etype and src, and returns what resend sent.
func bufRun(t *testing.T, x *Exec, p *Program, etype, src int64) (sent [][]byte, lens, ports []int) {
	t.Helper()
	x.PHV = make([]int64, p.NumSlots)
	head := make([]byte, 14)
	head[11], head[13] = byte(src), byte(etype)
	head = append(head, 0xaa, 0xbb) // payload bytes the model holds
	res := p.Codec().Parse(head, 100, x.PHV, false, false)
	x.PHV[p.Std[StdPacketLength].Slot] = 100
	x.Payload = PayloadBytes(head, 100, res.Offset)
	x.PayloadLen = 100 - res.Offset
	x.Send = func(h []byte, n int, _ PacketIdent) {
		sent, lens = append(sent, h), append(lens, n)
		ports = append(ports, int(x.PHV[p.Std[StdEgressPort].Slot]))
	}
	x.RunControl(p.Ingress)
	return
}

// TestPacketBuffers: store keeps the packet as it stands at the store
// (the tag set before it, not the change after), with its frame's length;
// resend sends a copy to the destination as it stands and keeps the
// slot; held, buffered and release track the slots; the buffer counts
// what it held.
func TestPacketBuffers(t *testing.T) {
	p, err := Load([]byte(bufProgram), "buf.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	x := NewExec(NewState(p), rand.New(rand.NewSource(1)))
	bufRun(t, x, p, 1, 2) // store slot 2: eth + tag(seq 2), 100 + 2 bytes
	bs := x.State.Buffers[0]
	if bs.Packets != 1 || bs.Bytes != 102 {
		t.Fatalf("after a store: %d packets, %d bytes; want 1 and 102", bs.Packets, bs.Bytes)
	}
	sent, lens, ports := bufRun(t, x, p, 2, 2)
	want := []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0x88, 0xb5, 0, 2, 0xaa, 0xbb}
	if len(sent) != 1 || !bytes.Equal(sent[0], want) || lens[0] != 102 || ports[0] != 3 {
		t.Fatalf("resend sent % x (%v) to %v, want % x (102) to port 3", sent, lens, ports, want)
	}
	if x.PHV[p.Field("meta.h").Slot] != 1 || x.PHV[p.Field("meta.n").Slot] != 102 {
		t.Errorf("held %d, buffered %d; want 1 and 102", x.PHV[p.Field("meta.h").Slot], x.PHV[p.Field("meta.n").Slot])
	}
	sent[0][0] = 0xff // the slot keeps its own copy
	if again, _, _ := bufRun(t, x, p, 2, 6); len(again) != 1 || again[0][0] != 0 {
		t.Fatalf("slot 6 (= 2 mod 4) resent % x, want the kept copy unchanged", again)
	}
	bufRun(t, x, p, 3, 2) // release
	if none, _, _ := bufRun(t, x, p, 2, 2); len(none) != 0 || x.PHV[p.Field("meta.h").Slot] != 0 {
		t.Fatalf("an empty slot resent %v (held %d)", none, x.PHV[p.Field("meta.h").Slot])
	}
	if bs.Packets != 0 || bs.Bytes != 0 || bs.PeakBytes != 102 || bs.Stores != 1 || bs.Resends != 3 || bs.Releases != 1 {
		t.Errorf("buffer %+v", *bs)
	}
}

// TestPacketBufferErrors: bad uses are one-line load errors at their line.
func TestPacketBufferErrors(t *testing.T) {
	for _, c := range []struct{ old, new, want, line string }{
		{"store(keep, eth.src)", "store(kept, eth.src)", "undefined packet buffer kept", "    store(kept, eth.src)"},
		{"store(keep, eth.src)", "store(eth, eth.src)", "header eth is not a packet buffer", "    store(eth, eth.src)"},
		{"store(keep, eth.src)", "store(keep, 4)", "index 4 is outside keep (size 4)", "    store(keep, 4)"},
		{"resend(keep, eth.src)", "resend(keep)", "resend takes two arguments", "    resend(keep)"},
		{"meta.n = buffered(keep)", "meta.n = buffered(keep, 1)", "buffered takes one argument", "    meta.n = buffered(keep, 1)"},
		{"  keep: {slots: 4}", "  keep: {slots: 0}", "slots must be 1..1048576", "  keep: {slots: 0}"},
		{"  keep: {slots: 4}", "  keep: {size: 4}", "size", "  keep: {size: 4}"},
	} {
		src := strings.Replace(bufProgram, c.old, c.new, 1)
		wantLoadError(t, "buf.yaml", src, c.want, c.line)
	}
	// Not in an action: a packet buffer is control flow.
	src := strings.Replace(bufProgram, "ingress: |", "actions:\n  a: store(keep, 1)\ningress: |", 1)
	wantLoadError(t, "buf.yaml", src, "cannot be used inside an action", "  a: store(keep, 1)")
}
