package sonic

import (
	"slices"
	"strings"
)

const trimTable = "SWITCH_TRIMMING"

// trimFields are SWITCH_TRIMMING|GLOBAL's fields (sonic-trimming.yang), in
// the order they are checked.
var trimFields = []string{"dscp_value", "queue_index", "size", "tc_value"}

// switchTrimming checks SWITCH_TRIMMING|GLOBAL in SONiC's layers: YANG
// types first (every field), then the switch's capabilities and the
// platform's ranges (CLI, orchagent, vendor SAI).
func (v *validator) switchTrimming() error {
	t := v.db[trimTable]
	if len(t) == 0 {
		return nil
	}
	for _, key := range sortedKeys(t) {
		if !v.caps.Trimming {
			return entryErr(trimTable, key, "", noValue, "operation is not supported: the switch is not trimming capable (SWITCH_TRIMMING_CAPABLE false)")
		}
		if key != "GLOBAL" {
			return entryErr(trimTable, key, "", noValue, "unknown key: %s has only GLOBAL", trimTable)
		}
	}
	fields := t["GLOBAL"]
	if err := checkFields(trimTable, "GLOBAL", fields, trimFields...); err != nil {
		return err
	}
	vals := map[string]string{}
	for _, f := range trimFields {
		raw, ok := fields[f]
		if !ok {
			continue
		}
		s, err := scalar(trimTable, "GLOBAL", f, raw)
		if err != nil {
			return err
		}
		if s == "" {
			return entryErr(trimTable, "GLOBAL", f, s, "empty value")
		}
		vals[f] = s
	}
	tr, err := v.trimmingTypes(vals)
	if err != nil {
		return err
	}
	if err := v.trimmingCapabilities(vals, tr); err != nil {
		return err
	}
	v.cfg.Trimming = tr
	return nil
}

// trimErr is an error on one SWITCH_TRIMMING|GLOBAL field.
func trimErr(field, got string, format string, a ...any) error {
	return entryErr(trimTable, "GLOBAL", field, got, format, a...)
}

// trimmingTypes applies sonic-trimming.yang's types: size uint32;
// dscp_value 0..63 or from-tc; tc_value uint8; queue_index uint8 or
// dynamic. The keywords are case-insensitive, as orchagent reads them.
// Absent fields keep SAI's defaults (DSCP_VALUE 0, STATIC 0). Errors give
// the range that applies on this switch (tc_value: uint8 unless from-tc
// mode uses it).
func (v *validator) trimmingTypes(vals map[string]string) (*Trimming, error) {
	tr := &Trimming{DSCPMode: DSCPValue, QueueMode: QueueStatic}
	for _, f := range trimFields {
		s, ok := vals[f]
		if !ok {
			if f == "size" {
				return nil, entryErr(trimTable, "GLOBAL", f, noValue, "required")
			}
			continue
		}
		switch f {
		case "dscp_value":
			if strings.EqualFold(s, "from-tc") {
				tr.DSCPMode = DSCPFromTC
				break
			}
			n, ok := parseUint(s, 8)
			if !ok || n > 63 {
				return nil, trimErr(f, s, "must be 0..63 or from-tc")
			}
			tr.DSCP = int(n)
		case "queue_index":
			if strings.EqualFold(s, "dynamic") {
				tr.QueueMode = QueueDyn
				break
			}
			n, ok := parseUint(s, 8)
			if !ok {
				return nil, trimErr(f, s, "must be 0..%d or dynamic", v.unicastQueues()-1)
			}
			tr.Queue = int(n)
		case "size":
			n, ok := parseUint(s, 32)
			if !ok {
				return nil, trimErr(f, s, "must be an unsigned 32-bit integer (bytes)")
			}
			tr.Size = int(n)
		case "tc_value":
			n, ok := parseUint(s, 8)
			if !ok && tr.DSCPMode == DSCPFromTC {
				return nil, trimErr(f, s, "must be 0..%d", v.trafficClasses()-1)
			}
			if !ok {
				return nil, trimErr(f, s, "must be 0..255")
			}
			tr.TC = int(n)
		}
	}
	return tr, nil
}

// trimmingCapabilities applies the switch's reported capabilities (the
// CLI's and orchagent's checks) and the platform's trim-size range (the
// vendor SAI's). tc_value is checked only in from-tc mode, where it is
// used; otherwise it is not programmed and Validate reports 0.
func (v *validator) trimmingCapabilities(vals map[string]string, tr *Trimming) error {
	for _, f := range trimFields {
		s, ok := vals[f]
		switch f {
		case "dscp_value":
			if err := modeSupported(f, s, "dscp", v.caps.DSCPModes, tr.DSCPMode, map[string]string{DSCPValue: "symmetric", DSCPFromTC: "asymmetric"}); err != nil {
				return err
			}
		case "queue_index":
			if err := modeSupported(f, s, "queue", v.caps.QueueModes, tr.QueueMode, map[string]string{QueueStatic: "static", QueueDyn: "dynamic"}); err != nil {
				return err
			}
			if ok && tr.QueueMode == QueueStatic && tr.Queue >= v.unicastQueues() {
				return trimErr(f, s, "must be 0..%d or dynamic: the switch has %d unicast queues", v.unicastQueues()-1, v.unicastQueues())
			}
		case "size":
			lo, hi := v.caps.MinTrimSize, v.caps.MaxTrimSize
			if hi <= 0 {
				hi = 1<<32 - 1
			}
			if tr.Size < lo || tr.Size > hi {
				return trimErr(f, s, "must be %d..%d bytes on this platform (a platform capability: the vendor SAI refuses other sizes)", lo, hi)
			}
		case "tc_value":
			if tr.DSCPMode != DSCPFromTC {
				tr.TC = 0 // accepted, not programmed
				continue
			}
			if ok && tr.TC >= v.trafficClasses() {
				return trimErr(f, s, "must be 0..%d: the switch has %d traffic classes", v.trafficClasses()-1, v.trafficClasses())
			}
		}
	}
	return nil
}

// modeSupported refuses a resolution mode the switch does not report
// (STATE_DB SWITCH_CAPABILITY|switch), with the CLI's wording. A field
// left out selects SAI's default mode, which is checked too.
func modeSupported(field, got, kind string, supported []string, mode string, adjective map[string]string) error {
	if slices.Contains(supported, mode) {
		return nil
	}
	var gotV any = got
	if got == "" {
		gotV = noValue
	}
	if len(supported) == 0 {
		return entryErr(trimTable, "GLOBAL", field, gotV, "no %s resolution mode capabilities", kind)
	}
	return entryErr(trimTable, "GLOBAL", field, gotV, "%s %s resolution mode is not supported", adjective[mode], kind)
}
