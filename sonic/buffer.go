package sonic

import (
	"math"
	"strings"
)

// Buffer tables (sonic-buffer-pool.yang, sonic-buffer-profile.yang,
// sonic-buffer-queue.yang, sonic-buffer-pg.yang,
// sonic-buffer-port-{ingress,egress}-profile-list.yang) and bufferorch's
// rule that only queues may use a trimming profile.

// priorityGroups is the number of ingress priority groups per port.
const priorityGroups = 8

// bufferBytes parses a byte count (uint64 that fits an int64).
func bufferBytes(table, key, field string, raw any) (int64, error) {
	s, err := scalar(table, key, field, raw)
	if err != nil {
		return 0, err
	}
	n, ok := parseUint(s, 64)
	if !ok || n > math.MaxInt64 {
		return 0, entryErr(table, key, field, s, "must be a number of bytes (unsigned integer)")
	}
	return int64(n), nil
}

// enum reads an enumeration field; def is used when the field is absent
// ("" makes it required).
func enum(table, key, field string, fields map[string]any, def string, values ...string) (string, error) {
	raw, ok := fields[field]
	if !ok {
		if def == "" {
			return "", entryErr(table, key, field, noValue, "required (%s)", strings.Join(values, " or "))
		}
		return def, nil
	}
	s, err := scalar(table, key, field, raw)
	if err != nil {
		return "", err
	}
	for _, v := range values {
		if s == v {
			return s, nil
		}
	}
	return "", entryErr(table, key, field, s, "invalid enumeration value: must be %s", strings.Join(values, " or "))
}

// bufferPools checks BUFFER_POOL|name: type (required), mode (default
// dynamic), size (default 0: the whole shared buffer); xoff is ignored.
func (v *validator) bufferPools() error {
	const table = "BUFFER_POOL"
	t := v.db[table]
	for _, key := range sortedKeys(t) {
		fields := t[key]
		if err := checkFields(table, key, fields, "mode", "size", "type", "xoff"); err != nil {
			return err
		}
		p := Pool{Name: key}
		var err error
		if p.Mode, err = enum(table, key, "mode", fields, "dynamic", "static", "dynamic"); err != nil {
			return err
		}
		if raw, ok := fields["size"]; ok {
			if p.Bytes, err = bufferBytes(table, key, "size", raw); err != nil {
				return err
			}
			if v.caps.BufferBytes > 0 && p.Bytes > v.caps.BufferBytes {
				return entryErr(table, key, "size", raw, "larger than the switch's shared buffer (%d bytes)", v.caps.BufferBytes)
			}
		}
		if p.Type, err = enum(table, key, "type", fields, "", "ingress", "egress"); err != nil {
			return err
		}
		v.cfg.Pools[key] = p
	}
	return nil
}

// bufferProfiles checks BUFFER_PROFILE|name: pool (a BUFFER_POOL), size,
// exactly one of dynamic_th (-8..8) and static_th (bytes), and
// packet_discard_action (drop|trim, default drop). xon, xoff and
// xon_offset are ignored.
func (v *validator) bufferProfiles() error {
	const table = "BUFFER_PROFILE"
	t := v.db[table]
	for _, key := range sortedKeys(t) {
		fields := t[key]
		if err := checkFields(table, key, fields, "dynamic_th", "packet_discard_action", "pool", "size", "static_th", "xoff", "xon", "xon_offset"); err != nil {
			return err
		}
		p := Profile{Name: key}
		dyn, hasDyn := fields["dynamic_th"]
		stat, hasStat := fields["static_th"]
		switch {
		case hasDyn && hasStat:
			return entryErr(table, key, "dynamic_th", dyn, "set together with static_th: a profile has exactly one of them")
		case hasDyn:
			s, err := scalar(table, key, "dynamic_th", dyn)
			if err != nil {
				return err
			}
			th, ok := inRange(s, -8, 8)
			if !ok {
				return entryErr(table, key, "dynamic_th", s, "must be an integer -8..8")
			}
			p.DynamicTh = &th
		case hasStat:
			n, err := bufferBytes(table, key, "static_th", stat)
			if err != nil {
				return err
			}
			p.StaticTh = n
		}
		action, err := enum(table, key, "packet_discard_action", fields, "drop", "drop", "trim")
		if err != nil {
			return err
		}
		if action == "trim" && !v.caps.Trimming {
			return entryErr(table, key, "packet_discard_action", action, "operation is not supported: the switch is not trimming capable")
		}
		p.DiscardTrim = action == "trim"
		raw, ok := fields["pool"]
		if !ok {
			return entryErr(table, key, "pool", noValue, "required")
		}
		s, err := scalar(table, key, "pool", raw)
		if err != nil {
			return err
		}
		p.Pool = refName("BUFFER_POOL", s)
		if _, ok := v.cfg.Pools[p.Pool]; !ok {
			return entryErr(table, key, "pool", s, "no such BUFFER_POOL")
		}
		if raw, ok := fields["size"]; ok {
			if p.Bytes, err = bufferBytes(table, key, "size", raw); err != nil {
				return err
			}
		}
		if !hasDyn && !hasStat {
			return entryErr(table, key, "dynamic_th", noValue, "required: a profile has exactly one of dynamic_th and static_th")
		}
		v.cfg.Profiles[key] = p
	}
	return nil
}

// profileRef resolves a profile reference from a queue, a priority group
// or a port profile list (stage egress or ingress): the profile must exist,
// use a pool of the stage's type, and may trim only when used by a queue
// (bufferorch isTrimmingProhibited).
func (v *validator) profileRef(table, key, field string, got any, name, stage string, queue bool) error {
	name = refName("BUFFER_PROFILE", name)
	p, ok := v.cfg.Profiles[name]
	if !ok {
		return entryErr(table, key, field, got, "no such BUFFER_PROFILE %s", quoteIfOdd(name))
	}
	if p.DiscardTrim && !queue {
		return entryErr(table, key, field, got, "BUFFER_PROFILE|%s has packet_discard_action trim, which only queues may use (bufferorch refuses it on %s)", name, table)
	}
	if pool := v.cfg.Pools[p.Pool]; pool.Type != stage {
		return entryErr(table, key, field, got, "BUFFER_PROFILE|%s uses the %s pool %s; %s needs an %s pool", name, pool.Type, pool.Name, table, stage)
	}
	v.refs[name] = append(v.refs[name], table+"|"+key)
	return nil
}

// bufferQueues checks BUFFER_QUEUE|EthernetN|q (or q1-q2): the queue's
// buffer profile.
func (v *validator) bufferQueues() error {
	const table = "BUFFER_QUEUE"
	owner := map[PortQueue]string{}
	t := v.db[table]
	for _, key := range sortedKeys(t) {
		port, lo, hi, err := v.portIndexes(table, key, v.unicastQueues(), "queue")
		if err != nil {
			return err
		}
		fields := t[key]
		if err := checkFields(table, key, fields, "profile"); err != nil {
			return err
		}
		name, err := requiredScalar(table, key, fields, "profile")
		if err != nil {
			return err
		}
		if err := v.profileRef(table, key, "profile", name, name, "egress", true); err != nil {
			return err
		}
		profile := refName("BUFFER_PROFILE", name)
		if err := claimQueues(owner, table, key, port, lo, hi, func(pq PortQueue) { v.cfg.Queues[pq] = profile }); err != nil {
			return err
		}
	}
	return nil
}

// portIndexes parses a key "EthernetN|i" or "EthernetN|i-j" whose indexes
// (queues or priority groups) are below limit.
func (v *validator) portIndexes(table, key string, limit int, what string) (port string, lo, hi int, err error) {
	parts, err := splitKey(table, key, 2, "EthernetN|"+what+" or EthernetN|first-last")
	if err != nil {
		return "", 0, 0, err
	}
	if err := v.checkPort(table, key, "", parts[0]); err != nil {
		return "", 0, 0, err
	}
	lo, hi, ok := indexRange(parts[1], limit)
	if !ok {
		return "", 0, 0, entryErr(table, key, "", parts[1], "%s must be 0..%d, or a range first-last of those", what, limit-1)
	}
	return parts[0], lo, hi, nil
}

// bufferPGs checks BUFFER_PG|EthernetN|pg (or pg1-pg2): the ingress
// priority group's profile, which may not trim.
func (v *validator) bufferPGs() error {
	const table = "BUFFER_PG"
	t := v.db[table]
	for _, key := range sortedKeys(t) {
		if _, _, _, err := v.portIndexes(table, key, priorityGroups, "priority group"); err != nil {
			return err
		}
		fields := t[key]
		if err := checkFields(table, key, fields, "profile"); err != nil {
			return err
		}
		name, err := requiredScalar(table, key, fields, "profile")
		if err != nil {
			return err
		}
		if err := v.profileRef(table, key, "profile", name, name, "ingress", false); err != nil {
			return err
		}
	}
	return nil
}

// profileLists checks BUFFER_PORT_{INGRESS,EGRESS}_PROFILE_LIST|EthernetN:
// profile_list, profiles of the stage's pools, none of them trimming.
func (v *validator) profileLists(table, stage string) error {
	t := v.db[table]
	for _, key := range sortedKeys(t) {
		if err := v.checkPort(table, key, "", key); err != nil {
			return err
		}
		fields := t[key]
		if err := checkFields(table, key, fields, "profile_list"); err != nil {
			return err
		}
		raw, ok := fields["profile_list"]
		if !ok {
			return entryErr(table, key, "profile_list", noValue, "required")
		}
		names, err := list(table, key, "profile_list", raw)
		if err != nil {
			return err
		}
		for _, name := range names {
			if err := v.profileRef(table, key, "profile_list", raw, name, stage, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// requiredScalar returns a field that must be present and a single value.
func requiredScalar(table, key string, fields map[string]any, field string) (string, error) {
	raw, ok := fields[field]
	if !ok {
		return "", entryErr(table, key, field, noValue, "required")
	}
	return scalar(table, key, field, raw)
}

// claimQueues records that key configures queues lo..hi of port (each
// queue by one key only) and calls set for each.
func claimQueues(owner map[PortQueue]string, table, key, port string, lo, hi int, set func(PortQueue)) error {
	for q := lo; q <= hi; q++ {
		pq := PortQueue{port, q}
		if other, dup := owner[pq]; dup {
			return entryErr(table, key, "", noValue, "queue %d of %s is also configured by %s|%s", q, port, table, other)
		}
		owner[pq] = key
		set(pq)
	}
	return nil
}
