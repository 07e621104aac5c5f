package sonic

import (
	"cmp"
	"slices"
	"strings"
)

// ACL tables (sonic-acl.yang, aclorch): the DISABLE_TRIM action, SAI
// SAI_ACL_ENTRY_ATTR_ACTION_PACKET_TRIM_DISABLE. aclorch reads field names
// case-insensitively (it upper-cases them); so does this.

// aclTableType is an ACL_TABLE_TYPE entry.
type aclTableType struct {
	matches, actions, bindPoints []string
}

// aclTable is an ACL_TABLE entry.
type aclTable struct {
	typeName string
	custom   *aclTableType // nil: a SONiC built-in type
	stage    string        // INGRESS or EGRESS
	ports    []string      // ports and PortChannels, as bound
}

// builtinACLTypes are SONiC's predefined table types, which have no
// DISABLE_TRIM action.
var builtinACLTypes = []string{
	"CTRLPLANE", "DROP", "L2", "L3", "L3V4V6", "L3V6", "MCLAG", "MIRROR",
	"MIRRORV6", "MIRROR_DSCP", "PFCWD", "TUNNEL_TERM",
}

// aclMatchFields are the ACL_RULE match fields SONiC defines. Only SRC_IP
// and SRC_IPV6 are modelled (for DISABLE_TRIM rules); the others are
// accepted in other rules and ignored.
var aclMatchFields = []string{
	"AETH_SYNDROME", "BTH_OPCODE", "DEI", "DSCP", "DST_IP", "DST_IPV6",
	"DST_MAC", "ETHER_TYPE", "ICMPV6_CODE", "ICMPV6_TYPE", "ICMP_CODE",
	"ICMP_TYPE", "INNER_ETHER_TYPE", "INNER_IP_PROTOCOL", "INNER_L4_DST_PORT",
	"INNER_L4_SRC_PORT", "IN_PORTS", "IP_PROTOCOL", "IP_TYPE", "L4_DST_PORT",
	"L4_DST_PORT_RANGE", "L4_SRC_PORT", "L4_SRC_PORT_RANGE", "NEXT_HEADER",
	"OUT_PORTS", "PCP", "SRC_IP", "SRC_IPV6", "SRC_MAC", "TC", "TCP_FLAGS",
	"TUNNEL_VNI", "VLAN_ID",
}

// aclActionFields are ACL_RULE action fields other than PACKET_ACTION,
// accepted and ignored.
var aclActionFields = []string{
	"MIRROR_ACTION", "MIRROR_EGRESS_ACTION", "MIRROR_INGRESS_ACTION", "REDIRECT_ACTION",
}

// aclFields returns fields keyed by their upper-cased names, and the
// names as written; it refuses two spellings of one field and fields not
// in allowed (upper case).
func aclFields(table, key string, fields map[string]any, allowed ...string) (map[string]any, map[string]string, error) {
	up := map[string]any{}
	written := map[string]string{}
	for _, f := range sortedKeys(fields) {
		u := strings.ToUpper(f)
		if !slices.Contains(allowed, u) {
			return nil, nil, entryErr(table, key, f, fields[f], "unknown field")
		}
		if other, dup := written[u]; dup {
			return nil, nil, entryErr(table, key, f, fields[f], "same field as %s (field names are case-insensitive)", other)
		}
		up[u] = fields[f]
		written[u] = f
	}
	return up, written, nil
}

// aclTableTypes checks ACL_TABLE_TYPE|name: MATCHES, ACTIONS and
// BIND_POINTS, lists.
func (v *validator) aclTableTypes() error {
	const table = "ACL_TABLE_TYPE"
	t := v.db[table]
	for _, key := range sortedKeys(t) {
		fields, written, err := aclFields(table, key, t[key], "ACTIONS", "BIND_POINTS", "MATCHES")
		if err != nil {
			return err
		}
		var tt aclTableType
		for _, l := range []struct {
			field string
			dst   *[]string
		}{{"ACTIONS", &tt.actions}, {"BIND_POINTS", &tt.bindPoints}, {"MATCHES", &tt.matches}} {
			raw, ok := fields[l.field]
			if !ok {
				continue
			}
			items, err := list(table, key, written[l.field], raw)
			if err != nil {
				return err
			}
			for i := range items {
				items[i] = strings.ToUpper(items[i])
			}
			*l.dst = items
		}
		v.aclTypes[key] = tt
	}
	return nil
}

// aclTablesCheck checks ACL_TABLE|name: TYPE (an ACL_TABLE_TYPE or a
// built-in), STAGE (INGRESS|EGRESS, default INGRESS), PORTS (ports and
// PortChannels). POLICY_DESC and SERVICES are ignored.
func (v *validator) aclTablesCheck() error {
	const table = "ACL_TABLE"
	t := v.db[table]
	for _, key := range sortedKeys(t) {
		fields, written, err := aclFields(table, key, t[key], "POLICY_DESC", "PORTS", "SERVICES", "STAGE", "TYPE")
		if err != nil {
			return err
		}
		at := aclTable{stage: "INGRESS"}
		if raw, ok := fields["STAGE"]; ok {
			s, err := scalar(table, key, written["STAGE"], raw)
			if err != nil {
				return err
			}
			at.stage = strings.ToUpper(s)
			if at.stage != "INGRESS" && at.stage != "EGRESS" {
				return entryErr(table, key, written["STAGE"], s, "must be INGRESS or EGRESS")
			}
		}
		raw, ok := fields["TYPE"]
		if !ok {
			return entryErr(table, key, "TYPE", noValue, "required")
		}
		s, err := scalar(table, key, written["TYPE"], raw)
		if err != nil {
			return err
		}
		if tt, ok := v.aclTypes[s]; ok {
			at.typeName, at.custom = s, &tt
		} else if i := slices.IndexFunc(builtinACLTypes, func(b string) bool { return strings.EqualFold(b, s) }); i >= 0 {
			at.typeName = builtinACLTypes[i]
		} else {
			return entryErr(table, key, written["TYPE"], s, "no such ACL_TABLE_TYPE (and not a built-in type)")
		}
		if raw, ok := fields["PORTS"]; ok {
			if at.ports, err = v.aclPorts(table, key, written["PORTS"], raw, at); err != nil {
				return err
			}
		}
		v.aclTables[key] = at
	}
	return nil
}

// aclPorts checks a table's PORTS: ports or PortChannels, each of a bind
// point the table's type allows.
func (v *validator) aclPorts(table, key, field string, raw any, at aclTable) ([]string, error) {
	ports, err := list(table, key, field, raw)
	if err != nil {
		return nil, err
	}
	for _, p := range ports {
		if err := v.checkInterface(table, key, field, p); err != nil {
			return nil, err
		}
		if at.custom == nil {
			continue
		}
		bind := "PORT"
		if !v.isPort(p) {
			bind = "PORTCHANNEL"
		}
		if !slices.Contains(at.custom.bindPoints, bind) {
			return nil, entryErr(table, key, field, raw, "%s needs bind point %s, which ACL_TABLE_TYPE|%s does not list in BIND_POINTS", p, bind, at.typeName)
		}
	}
	return ports, nil
}

// aclRules checks ACL_RULE|TABLE|RULE and keeps the DISABLE_TRIM rules,
// highest priority first.
func (v *validator) aclRules() error {
	const table = "ACL_RULE"
	allowed := append([]string{"PACKET_ACTION", "PRIORITY"}, aclMatchFields...)
	allowed = append(allowed, aclActionFields...)
	slices.Sort(allowed)
	t := v.db[table]
	for _, key := range sortedKeys(t) {
		parts, err := splitKey(table, key, 2, "TABLE|RULE")
		if err != nil {
			return err
		}
		at, ok := v.aclTables[parts[0]]
		if !ok {
			return entryErr(table, key, "", parts[0], "no such ACL_TABLE")
		}
		fields, written, err := aclFields(table, key, t[key], allowed...)
		if err != nil {
			return err
		}
		rule, trim, err := v.aclRule(table, key, fields, written, at)
		if err != nil {
			return err
		}
		if trim {
			rule.Table, rule.Name = parts[0], parts[1]
			v.cfg.ACLRules = append(v.cfg.ACLRules, rule)
		}
	}
	slices.SortStableFunc(v.cfg.ACLRules, func(a, b ACLRule) int {
		return cmp.Or(cmp.Compare(b.Priority, a.Priority), cmp.Compare(a.Table, b.Table), cmp.Compare(a.Name, b.Name))
	})
	return nil
}

// aclRule checks one rule; trim reports a DISABLE_TRIM rule.
func (v *validator) aclRule(table, key string, fields map[string]any, written map[string]string, at aclTable) (rule ACLRule, trim bool, err error) {
	action := ""
	for _, f := range sortedKeys(fields) {
		raw := fields[f]
		name := written[f]
		if at.custom != nil && slices.Contains(aclMatchFields, f) && !slices.Contains(at.custom.matches, f) {
			return rule, false, entryErr(table, key, name, raw, "not a match field of ACL_TABLE_TYPE|%s (MATCHES %s)", at.typeName, strings.Join(at.custom.matches, ","))
		}
		if f != "PACKET_ACTION" && f != "PRIORITY" && f != "SRC_IP" && f != "SRC_IPV6" {
			continue // accepted, not modelled
		}
		s, err := scalar(table, key, name, raw)
		if err != nil {
			return rule, false, err
		}
		switch f {
		case "PACKET_ACTION":
			if s != "FORWARD" && s != "DROP" && s != "DISABLE_TRIM" {
				return rule, false, entryErr(table, key, name, s, "must be FORWARD, DROP or DISABLE_TRIM")
			}
			action = s
		case "PRIORITY":
			n, ok := parseUint(s, 31)
			if !ok {
				return rule, false, entryErr(table, key, name, s, "must be a non-negative integer")
			}
			rule.Priority = int(n)
		case "SRC_IP":
			p, err := parsePrefix(s, false)
			if err != nil {
				return rule, false, entryErr(table, key, name, s, "must be an IPv4 address or prefix: %v", err)
			}
			rule.SrcIPv4 = p.String()
		case "SRC_IPV6":
			p, err := parsePrefix(s, true)
			if err != nil {
				return rule, false, entryErr(table, key, name, s, "must be an IPv6 address or prefix: %v", err)
			}
			rule.SrcIPv6 = p.String()
		}
	}
	if _, ok := fields["PRIORITY"]; !ok {
		return rule, false, entryErr(table, key, "PRIORITY", noValue, "required")
	}
	if action != "" && at.custom != nil {
		need := "PACKET_ACTION"
		if action == "DISABLE_TRIM" {
			need = "DISABLE_TRIM_ACTION"
		}
		if !slices.Contains(at.custom.actions, need) {
			return rule, false, entryErr(table, key, written["PACKET_ACTION"], action, "ACL_TABLE_TYPE|%s does not list %s in ACTIONS", at.typeName, need)
		}
	}
	if action != "DISABLE_TRIM" {
		return rule, false, nil
	}
	return v.disableTrimRule(table, key, fields, written, at, rule)
}

// disableTrimRule applies what a DISABLE_TRIM rule needs: a table type with
// DISABLE_TRIM_ACTION, at stage INGRESS, matching on SRC_IP or SRC_IPV6
// (or nothing) only.
func (v *validator) disableTrimRule(table, key string, fields map[string]any, written map[string]string, at aclTable, rule ACLRule) (ACLRule, bool, error) {
	name := written["PACKET_ACTION"]
	if at.custom == nil {
		return rule, false, entryErr(table, key, name, "DISABLE_TRIM", "table type %s has no DISABLE_TRIM_ACTION (use an ACL_TABLE_TYPE that lists it)", at.typeName)
	}
	if at.stage != "INGRESS" {
		return rule, false, entryErr(table, key, name, "DISABLE_TRIM", "needs an INGRESS table (ACL_TABLE stage is %s)", at.stage)
	}
	for _, f := range sortedKeys(fields) {
		if slices.Contains(aclMatchFields, f) && f != "SRC_IP" && f != "SRC_IPV6" {
			return rule, false, entryErr(table, key, written[f], fields[f], "not modelled in DISABLE_TRIM rules (only SRC_IP and SRC_IPV6 are)")
		}
	}
	if rule.SrcIPv4 != "" && rule.SrcIPv6 != "" {
		return rule, false, entryErr(table, key, written["SRC_IPV6"], fields["SRC_IPV6"], "a rule matches SRC_IP or SRC_IPV6, not both")
	}
	var ports []string
	for _, p := range at.ports {
		if members, ok := v.cfg.PortChannels[p]; ok {
			ports = append(ports, members...)
		} else {
			ports = append(ports, p)
		}
	}
	sortPorts(ports)
	rule.Ports = slices.Compact(ports)
	return rule, true, nil
}
