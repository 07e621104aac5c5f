package sonic

import (
	"slices"
	"strconv"
)

// QoS maps, PORT_QOS_MAP and schedulers (sonic-dscp-tc-map.yang,
// sonic-tc-queue-map.yang, sonic-tc-dscp-map.yang, sonic-port-qos-map.yang,
// sonic-scheduler.yang, sonic-queue.yang).

// qosMap checks a map table TABLE|name {from: to}: every field name in
// from's domain, every value in to's.
func (v *validator) qosMap(table string, from, to domain, dst map[string]map[int]int) error {
	t := v.db[table]
	for _, key := range sortedKeys(t) {
		m := map[int]int{}
		fields := t[key]
		for _, f := range sortedKeys(fields) {
			k, ok := inRange(f, from.lo, from.hi)
			if !ok || f != strconv.Itoa(k) {
				return entryErr(table, key, f, noValue, "field name must be %s", from)
			}
			s, err := scalar(table, key, f, fields[f])
			if err != nil {
				return err
			}
			val, ok := inRange(s, to.lo, to.hi)
			if !ok || s[0] == '-' {
				return entryErr(table, key, f, s, "must be %s", to)
			}
			m[k] = val
		}
		dst[key] = m
	}
	return nil
}

// portQoSFields are PORT_QOS_MAP's fields that are accepted and ignored.
var portQoSFields = []string{
	"dot1p_to_tc_map", "dscp_to_fc_map", "exp_to_fc_map", "mpls_tc_to_tc_map",
	"pfc_enable", "pfc_to_pg_map", "pfc_to_queue_map", "pfcwd_sw_enable",
	"tc_to_dot1p_map", "tc_to_pg_map",
}

// portQoSMaps checks PORT_QOS_MAP|EthernetN (or PortChannelN): the map
// names must exist.
func (v *validator) portQoSMaps() error {
	const table = "PORT_QOS_MAP"
	allowed := append([]string{"dscp_to_tc_map", "tc_to_dscp_map", "tc_to_queue_map"}, portQoSFields...)
	slices.Sort(allowed)
	t := v.db[table]
	for _, key := range sortedKeys(t) {
		if err := v.checkInterface(table, key, "", key); err != nil {
			return err
		}
		fields := t[key]
		if err := checkFields(table, key, fields, allowed...); err != nil {
			return err
		}
		var q PortQoS
		for _, ref := range []struct {
			field, table string
			maps         map[string]map[int]int
			dst          *string
		}{
			{"dscp_to_tc_map", "DSCP_TO_TC_MAP", v.cfg.DSCPToTC, &q.DSCPToTC},
			{"tc_to_dscp_map", "TC_TO_DSCP_MAP", v.cfg.TCToDSCP, &q.TCToDSCP},
			{"tc_to_queue_map", "TC_TO_QUEUE_MAP", v.cfg.TCToQueue, &q.TCToQueue},
		} {
			raw, ok := fields[ref.field]
			if !ok {
				continue
			}
			s, err := scalar(table, key, ref.field, raw)
			if err != nil {
				return err
			}
			name := refName(ref.table, s)
			if _, ok := ref.maps[name]; !ok {
				return entryErr(table, key, ref.field, s, "no such %s", ref.table)
			}
			*ref.dst = name
		}
		v.cfg.PortQoS[key] = q
	}
	return nil
}

// schedulers checks SCHEDULER|name: type DWRR|WRR|STRICT (required),
// weight 1..100 (default 1, SAI's), pir and cir in bytes/s (default 0:
// unshaped). meter_type, pbs and cbs are ignored.
func (v *validator) schedulers() error {
	const table = "SCHEDULER"
	t := v.db[table]
	for _, key := range sortedKeys(t) {
		fields := t[key]
		if err := checkFields(table, key, fields, "cbs", "cir", "meter_type", "pbs", "pir", "type", "weight"); err != nil {
			return err
		}
		s := Scheduler{Name: key, Weight: 1}
		for _, f := range []string{"cir", "pir"} {
			raw, ok := fields[f]
			if !ok {
				continue
			}
			str, err := scalar(table, key, f, raw)
			if err != nil {
				return err
			}
			rate, ok := parseRate(str)
			if !ok {
				return entryErr(table, key, f, str, "must be a non-negative number (bytes/s)")
			}
			if f == "cir" {
				s.CIR = rate
			} else {
				s.PIR = rate
			}
		}
		var err error
		if s.Type, err = enum(table, key, "type", fields, "", "DWRR", "WRR", "STRICT"); err != nil {
			return err
		}
		if raw, ok := fields["weight"]; ok {
			str, err := scalar(table, key, "weight", raw)
			if err != nil {
				return err
			}
			w, ok := inRange(str, 1, 100)
			if !ok || str[0] == '-' {
				return entryErr(table, key, "weight", str, "must be 1..100")
			}
			s.Weight = w
		}
		v.cfg.Schedulers[key] = s
	}
	return nil
}

// queueSchedulers checks QUEUE|EthernetN|q (or q1-q2): scheduler must
// exist; wred_profile is ignored.
func (v *validator) queueSchedulers() error {
	const table = "QUEUE"
	owner := map[PortQueue]string{}
	t := v.db[table]
	for _, key := range sortedKeys(t) {
		port, lo, hi, err := v.portIndexes(table, key, v.unicastQueues(), "queue")
		if err != nil {
			return err
		}
		fields := t[key]
		if err := checkFields(table, key, fields, "scheduler", "wred_profile"); err != nil {
			return err
		}
		raw, ok := fields["scheduler"]
		if !ok {
			continue
		}
		s, err := scalar(table, key, "scheduler", raw)
		if err != nil {
			return err
		}
		name := refName("SCHEDULER", s)
		if _, ok := v.cfg.Schedulers[name]; !ok {
			return entryErr(table, key, "scheduler", s, "no such SCHEDULER")
		}
		if err := claimQueues(owner, table, key, port, lo, hi, func(pq PortQueue) { v.cfg.QueueSchedulers[pq] = name }); err != nil {
			return err
		}
	}
	return nil
}
