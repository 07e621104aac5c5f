package sonic

// PORT, PORTCHANNEL and PORTCHANNEL_MEMBER (sonic-port.yang,
// sonic-portchannel.yang).

// ports checks PORT|EthernetN: admin_status up|down; the platform's other
// fields (speed, lanes, mtu, fec, ...) are accepted and ignored, but a
// field one or two letters from admin_status is taken for a misspelling
// of it (it would leave the port up without a word).
func (v *validator) ports() error {
	const table = "PORT"
	t := v.db[table]
	for _, key := range sortedKeys(t) {
		if err := v.checkPort(table, key, "", key); err != nil {
			return err
		}
		for _, f := range sortedKeys(t[key]) {
			if f != "admin_status" && editDistance(f, "admin_status") <= 2 {
				return entryErr(table, key, f, t[key][f], "unknown field; did you mean admin_status?")
			}
		}
		if err := v.adminStatus(table, key, t[key]); err != nil {
			return err
		}
	}
	return nil
}

// editDistance is the Levenshtein distance of a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// adminStatus reads admin_status (up|down); down is recorded.
func (v *validator) adminStatus(table, key string, fields map[string]any) error {
	raw, ok := fields["admin_status"]
	if !ok {
		return nil
	}
	s, err := scalar(table, key, "admin_status", raw)
	if err != nil {
		return err
	}
	switch s {
	case "up":
	case "down":
		v.cfg.AdminDown[key] = true
	default:
		return entryErr(table, key, "admin_status", s, "must be up or down")
	}
	return nil
}

// portChannels checks PORTCHANNEL|PortChannelN and its members list.
func (v *validator) portChannels() error {
	const table = "PORTCHANNEL"
	t := v.db[table]
	for _, key := range sortedKeys(t) {
		if !isPortChannelName(key) {
			return entryErr(table, key, "", key, "not a PortChannel name: PortChannel followed by 1 to 4 digits")
		}
		fields := t[key]
		if err := checkFields(table, key, fields, "admin_status", "fast_rate", "lacp_key", "members", "min_links", "mtu"); err != nil {
			return err
		}
		if err := v.adminStatus(table, key, fields); err != nil {
			return err
		}
		v.cfg.PortChannels[key] = []string{}
	}
	for _, key := range sortedKeys(t) {
		raw, ok := t[key]["members"]
		if !ok {
			continue
		}
		members, err := list(table, key, "members", raw)
		if err != nil {
			return err
		}
		for _, m := range members {
			if err := v.addMember(table, key, "members", raw, key, m); err != nil {
				return err
			}
		}
	}
	return nil
}

// portChannelMembers checks PORTCHANNEL_MEMBER|PortChannelN|EthernetM.
func (v *validator) portChannelMembers() error {
	const table = "PORTCHANNEL_MEMBER"
	t := v.db[table]
	for _, key := range sortedKeys(t) {
		parts, err := splitKey(table, key, 2, "PortChannelN|EthernetM")
		if err != nil {
			return err
		}
		if _, ok := v.cfg.PortChannels[parts[0]]; !ok {
			return entryErr(table, key, "", parts[0], "no such PORTCHANNEL")
		}
		if err := checkFields(table, key, t[key]); err != nil {
			return err
		}
		if err := v.addMember(table, key, "", parts[1], parts[0], parts[1]); err != nil {
			return err
		}
	}
	for pc, members := range v.cfg.PortChannels {
		sortPorts(members)
		v.cfg.PortChannels[pc] = members
	}
	return nil
}

// addMember adds port to PortChannel pc; a port belongs to one LAG at most.
func (v *validator) addMember(table, key, field string, got any, pc, port string) error {
	if !v.isPort(port) {
		return entryErr(table, key, field, got, "member %s is not a port: %s", quoteIfOdd(port), v.portRule())
	}
	switch other, ok := v.lagOf[port]; {
	case ok && other == pc:
		return nil
	case ok:
		return entryErr(table, key, field, got, "%s is already a member of %s (a port can be in one PortChannel only)", port, other)
	}
	v.lagOf[port] = pc
	v.cfg.PortChannels[pc] = append(v.cfg.PortChannels[pc], port)
	return nil
}
