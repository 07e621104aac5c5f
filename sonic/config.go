package sonic

import (
	"cmp"
	"slices"
)

// TrimQueues lists the queues whose buffer profile trims
// (packet_discard_action trim), by port number then queue.
func (c *Config) TrimQueues() []PortQueue {
	var out []PortQueue
	for pq, prof := range c.Queues {
		if c.Profiles[prof].DiscardTrim {
			out = append(out, pq)
		}
	}
	slices.SortFunc(out, func(a, b PortQueue) int {
		na, _ := portNumber(a.Port)
		nb, _ := portNumber(b.Port)
		if na != nb {
			return na - nb
		}
		return a.Queue - b.Queue
	})
	return out
}

// PortQoSFor is the QoS maps that apply to a port: its own PORT_QOS_MAP
// entry, with the maps it does not name taken from its PortChannel's
// entry.
func (c *Config) PortQoSFor(port string) PortQoS {
	own := c.PortQoS[port]
	for pc, members := range c.PortChannels {
		if !slices.Contains(members, port) {
			continue
		}
		lag := c.PortQoS[pc]
		own.DSCPToTC = cmp.Or(own.DSCPToTC, lag.DSCPToTC)
		own.TCToQueue = cmp.Or(own.TCToQueue, lag.TCToQueue)
		own.TCToDSCP = cmp.Or(own.TCToDSCP, lag.TCToDSCP)
	}
	return own
}
