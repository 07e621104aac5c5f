package hosts

import (
	"encoding/csv"
	"io"
	"strconv"
)

// Fate is what happened to one transmitted data packet.
type Fate uint8

// Fates, in resolution order: a whole delivery beats a header, which beats
// a drop.
const (
	FateInFlight Fate = iota // still in the network when the run ended
	FateDropped
	FateTrimmed   // its header reached the receiver
	FateDelivered // it reached the receiver whole
	// FateResolved is FateOf's answer for a packet whose page was
	// released (FinalFates): delivered or dropped, no longer known which.
	FateResolved
)

// Recorder collects what every host saw, for a whole run.
//
// It keeps one byte per packet id (the fate, whether the packet carries
// data, and an interned drop reason) and running counts of data packets by
// fate and drop reason, so a run's accounting costs one byte per packet
// sent. Per-packet records (Headers, Arrivals) are kept only when asked
// for (KeepHeaders, KeepArrivals).
type Recorder struct {
	Twice int // packets delivered whole twice (must stay 0)
	Both  int // packets delivered whole and as a header (must stay 0)

	nextID   uint64   // data packet ids handed out
	nextCtrl uint64   // control packet ids handed out
	pages    [][]byte // state of packet id i: pages[i>>pageBits][i&pageMask]
	// Drop reasons: code c in 1..maxReasonCode is reasons[c-1]; a packet
	// dropped for a reason past those has code maxReasonCode+1 and its
	// reason in moreReasons.
	reasons     []string
	reasonCode  map[string]byte
	moreReasons map[uint64]string
	// Running counts over data packets.
	dataSent int
	byFate   [4]int
	// Data packets whose fate is FateDropped, by reason code (byCode[c]
	// for codes 1..maxReasonCode) and, past those, by reason (byMore);
	// lastReason and lastCode are the reason Dropped coded last.
	byCode     [maxReasonCode + 1]int
	byMore     map[string]int
	lastReason string
	lastCode   byte

	Goodput  []int64 // distinct payload bytes delivered, per flow
	LastData []int64 // time of the last new data per flow
	Done     []int64 // completion time per flow (0: not done)

	// KeepHeaders keeps every trimmed header's arrival in Headers, and
	// KeepArrivals every packet reaching a receiver (cbr workloads) in
	// Arrivals (NewRecorder sets both).
	KeepHeaders, KeepArrivals bool
	Headers                   []HeaderArrival
	Arrivals                  []PacketArrival

	// Stream's output (nil: none) and clock.
	log *csv.Writer
	now func() int64

	// final: a data packet's first fate is its last (FinalFates); resolved
	// counts each page's resolved packets, and a page whose packets are
	// all resolved is released (nil).
	final    bool
	resolved []uint32
	spare    [][]byte // released pages, cleared, for the next ids
	// Late counts deliveries of packets that were already resolved, in a
	// released page (FinalFates; must stay 0).
	Late int
}

// FinalFates makes a data packet's first fate (delivered, or dropped) its
// last, for traffic that is never copied (a UDP stream): a page of
// packet states is released once all its packets are resolved, so the
// recorder's memory follows the packets in flight, not those sent. A
// later delivery of a packet in a released page counts in Late (a packet
// resolved twice); a later drop is ignored, as a drop of a resolved
// packet always is. Call it before the first NewID.
func (r *Recorder) FinalFates() { r.final = true }

// RecordsHeader is the header line Stream writes.
var RecordsHeader = []string{"time_ps", "id", "event", "data", "flow", "reason"}

// Stream writes every packet event, as it happens, to w as CSV (see
// RecordsHeader): "sent" (with whether the packet carries data and its
// flow), "dropped" (with the reason: the packet was lost while no copy had
// arrived yet; another copy may still arrive), "header"
// (its trimmed header reached the receiver) and "delivered" (whole). now
// is the simulation time in ps. Call Flush when the run ends.
func (r *Recorder) Stream(w io.Writer, now func() int64) error {
	r.log, r.now = csv.NewWriter(w), now
	return r.log.Write(RecordsHeader)
}

// Flush writes out what Stream buffered and returns the first write error.
func (r *Recorder) Flush() error {
	if r.log == nil {
		return nil
	}
	r.log.Flush()
	return r.log.Error()
}

func (r *Recorder) record(id uint64, event string, data bool, flow, reason string) {
	ids := strconv.FormatUint(id, 10)
	if id&ctrlID != 0 {
		ids = "c" + strconv.FormatUint(id&^ctrlID, 10)
	}
	_ = r.log.Write([]string{strconv.FormatInt(r.now(), 10), ids, event, strconv.FormatBool(data), flow, reason})
}

// ctrlID marks a control packet's id (its own sequence below the bit).
const ctrlID = 1 << 63

// PacketArrival is a data packet or its header reaching the receiver.
type PacketArrival struct {
	Flow    int
	Seq     int
	AtPs    int64
	Trimmed bool
	Flags   uint8 // NDP flags as received (ndp marks deflect-on-drop headers 0x90, ingress-trimmed 0x80)
}

// HeaderArrival is a trimmed header reaching its receiver.
type HeaderArrival struct {
	Flow int
	AtPs int64
}

// A packet id's state byte.
const (
	fateMask      = 0b11
	dataBit       = 1 << 2
	reasonShift   = 3
	maxReasonCode = 1<<(8-reasonShift) - 2 // the last code means "in moreReasons"

	pageBits = 16
	pageMask = 1<<pageBits - 1
)

// NewRecorder returns a recorder for flows flows that keeps every header
// and arrival.
func NewRecorder(flows int) *Recorder {
	return &Recorder{
		Goodput:      make([]int64, flows),
		LastData:     make([]int64, flows),
		Done:         make([]int64, flows),
		KeepHeaders:  true,
		KeepArrivals: true,
	}
}

// NewID returns a fresh packet id (ids start at 1) for a data or control
// packet of flow flow.
func (r *Recorder) NewID(data bool, flow int) uint64 {
	if !data {
		// Control packets (ACK, NACK, PULL) are two in three packets and
		// no tally counts them: their ids come from a space of their own
		// and keep no state, so memory grows by a byte per data packet.
		r.nextCtrl++
		id := ctrlID | r.nextCtrl
		if r.log != nil {
			r.record(id, "sent", false, strconv.Itoa(flow), "")
		}
		return id
	}
	r.nextID++
	id := r.nextID
	if int(id>>pageBits) == len(r.pages) {
		if n := len(r.spare); n > 0 {
			r.pages = append(r.pages, r.spare[n-1])
			r.spare = r.spare[:n-1]
		} else {
			r.pages = append(r.pages, make([]byte, 1<<pageBits))
		}
		if r.final {
			r.resolved = append(r.resolved, 0)
		}
	}
	if data {
		r.pages[id>>pageBits][id&pageMask] = dataBit
		r.dataSent++
		r.byFate[FateInFlight]++
	}
	if r.log != nil {
		r.record(id, "sent", data, strconv.Itoa(flow), "")
	}
	return id
}

func (r *Recorder) state(id uint64) *byte { return &r.pages[id>>pageBits][id&pageMask] }

// released reports whether id's page was released (FinalFates).
func (r *Recorder) released(id uint64) bool { return r.pages[id>>pageBits] == nil }

// resolve counts data packet id's first fate (FinalFates) and releases its
// page when that was the page's last packet in flight. Ids 0 and
// 1<<pageBits-1 of a page are counted alike; id 0 is never handed out, so
// page 0 has one packet fewer.
func (r *Recorder) resolve(id uint64) {
	k := id >> pageBits
	r.resolved[k]++
	full := uint32(1 << pageBits)
	if k == 0 {
		full--
	}
	if r.resolved[k] == full {
		clear(r.pages[k])
		r.spare = append(r.spare, r.pages[k])
		r.pages[k] = nil
	}
}

// Packets is the number of packet ids handed out (data and control).
func (r *Recorder) Packets() int { return int(r.nextID + r.nextCtrl) }

// FateOf returns packet id's fate, whether it carries data, and the drop
// reason when its fate is FateDropped.
func (r *Recorder) FateOf(id uint64) (f Fate, data bool, reason string) {
	if id == 0 || id > r.nextID { // control ids have no state
		return FateInFlight, false, ""
	}
	if r.released(id) {
		return FateResolved, true, ""
	}
	b := *r.state(id)
	return Fate(b & fateMask), b&dataBit != 0, r.reason(id, b)
}

func (r *Recorder) reason(id uint64, b byte) string {
	switch c := b >> reasonShift; {
	case c == 0:
		return ""
	case c <= maxReasonCode:
		return r.reasons[c-1]
	default:
		return r.moreReasons[id]
	}
}

// Dropped records that the network dropped a packet (or one copy of it).
func (r *Recorder) Dropped(id uint64, reason string) {
	if id&ctrlID != 0 && r.log != nil {
		r.record(id, "dropped", false, "", reason)
	}
	if id == 0 || id > r.nextID || r.released(id) {
		return
	}
	p := r.state(id)
	if Fate(*p&fateMask) != FateInFlight {
		return
	}
	if r.final && *p&dataBit != 0 {
		defer r.resolve(id)
	}
	c, ok := r.lastCode, r.lastCode != 0 && reason == r.lastReason
	if !ok {
		c, ok = r.reasonCode[reason]
	}
	if ok {
		r.lastReason, r.lastCode = reason, c
	} else {
		if len(r.reasons) < maxReasonCode {
			if r.reasonCode == nil {
				r.reasonCode = map[string]byte{}
			}
			r.reasons = append(r.reasons, reason)
			c = byte(len(r.reasons))
			r.reasonCode[reason] = c
			r.lastReason, r.lastCode = reason, c
		} else {
			c = maxReasonCode + 1
			if r.moreReasons == nil {
				r.moreReasons = map[uint64]string{}
			}
			r.moreReasons[id] = reason
		}
	}
	*p = *p&dataBit | c<<reasonShift | byte(FateDropped)
	if r.log != nil {
		r.record(id, "dropped", *p&dataBit != 0, "", reason)
	}
	if *p&dataBit != 0 {
		r.byFate[FateInFlight]--
		r.byFate[FateDropped]++
		if c <= maxReasonCode {
			r.byCode[c]++
		} else {
			if r.byMore == nil {
				r.byMore = map[string]int{}
			}
			r.byMore[reason]++
		}
	}
}

// Delivered records that a packet reached its receiver whole, for hosts
// outside this package that number their packets with NewID (TCP).
func (r *Recorder) Delivered(id uint64) { r.delivered(id, true) }

func (r *Recorder) delivered(id uint64, whole bool) {
	if id&ctrlID != 0 || id == 0 || id > r.nextID {
		if r.log != nil {
			event := "header"
			if whole {
				event = "delivered"
			}
			r.record(id, event, false, "", "")
		}
		return
	}
	if r.released(id) {
		r.Late++
		return
	}
	p := r.state(id)
	f := Fate(*p & fateMask)
	if r.final && f != FateInFlight {
		// A second fate of a packet not yet released: as late.
		r.Late++
		return
	}
	if r.final && *p&dataBit != 0 {
		defer r.resolve(id)
	}
	switch {
	case whole && f == FateDelivered:
		r.Twice++
	case whole && f == FateTrimmed, !whole && f == FateDelivered:
		r.Both++
	}
	nf := f
	if whole {
		nf = FateDelivered
	} else if f != FateDelivered {
		nf = FateTrimmed
	}
	if *p&dataBit != 0 {
		r.byFate[f]--
		r.byFate[nf]++
		if f == FateDropped {
			if c := *p >> reasonShift; c <= maxReasonCode {
				r.byCode[c]--
			} else {
				reason := r.reason(id, *p)
				if r.byMore[reason]--; r.byMore[reason] == 0 {
					delete(r.byMore, reason)
				}
			}
		}
	}
	if *p>>reasonShift > maxReasonCode {
		delete(r.moreReasons, id)
	}
	*p = *p&dataBit | byte(nf)
	if r.log != nil {
		event := "header"
		if whole {
			event = "delivered"
		}
		r.record(id, event, *p&dataBit != 0, "", "")
	}
}

// header records a trimmed header reaching its receiver.
func (r *Recorder) header(flow int, atPs int64) {
	if r.KeepHeaders {
		r.Headers = append(r.Headers, HeaderArrival{Flow: flow, AtPs: atPs})
	}
}

// arrival records a packet or header reaching its receiver.
func (r *Recorder) arrival(a PacketArrival) {
	if r.KeepArrivals {
		r.Arrivals = append(r.Arrivals, a)
	}
}

// Tally is every transmitted data packet resolved to exactly one fate.
type Tally struct {
	DataSent, Delivered, Trimmed, Dropped, InFlight int
	// DropReasons counts the dropped data packets by reason.
	DropReasons map[string]int
}

// Tally returns the data packets sent so far by fate.
func (r *Recorder) Tally() Tally {
	t := Tally{DataSent: r.dataSent, Delivered: r.byFate[FateDelivered], Trimmed: r.byFate[FateTrimmed],
		Dropped: r.byFate[FateDropped], InFlight: r.byFate[FateInFlight], DropReasons: map[string]int{}}
	for c, reason := range r.reasons {
		if n := r.byCode[c+1]; n > 0 {
			t.DropReasons[reason] = n
		}
	}
	for k, v := range r.byMore {
		t.DropReasons[k] = v
	}
	return t
}
