package sonic

import (
	"errors"
	"net/netip"
	"slices"
	"strings"
)

// parsePrefix parses an address or prefix of one family; an address alone
// is a host prefix (/32 or /128). The result is masked ("10.1.2.3/16" →
// "10.1.0.0/16").
func parsePrefix(s string, v6 bool) (netip.Prefix, error) {
	var p netip.Prefix
	if strings.Contains(s, "/") {
		var err error
		if p, err = netip.ParsePrefix(s); err != nil {
			return p, errors.New(strings.TrimPrefix(err.Error(), "netip.ParsePrefix("+`"`+s+`"`+"): "))
		}
	} else {
		a, err := netip.ParseAddr(s)
		if err != nil {
			return p, errors.New("not an address")
		}
		if a.Zone() != "" {
			return p, errors.New("zones are not allowed")
		}
		p = netip.PrefixFrom(a, a.BitLen())
	}
	if p.Addr().Is4() == v6 {
		if v6 {
			return p, errors.New("an IPv4 address")
		}
		return p, errors.New("an IPv6 address")
	}
	return p.Masked(), nil
}

// staticRoutes checks STATIC_ROUTE|prefix (or STATIC_ROUTE|default|prefix):
// ifname, one port or PortChannel. nexthop, distance, nexthop-vrf and
// advertise are ignored; ECMP and blackhole routes are not modelled.
func (v *validator) staticRoutes() error {
	const table = "STATIC_ROUTE"
	seen := map[string]string{}
	t := v.db[table]
	for _, key := range sortedKeys(t) {
		prefixText := key
		if vrf, pfx, ok := strings.Cut(key, "|"); ok {
			if vrf != "default" {
				return entryErr(table, key, "", vrf, "VRFs other than default are not modelled")
			}
			prefixText = pfx
		}
		p, err := netip.ParsePrefix(prefixText)
		if err != nil {
			return entryErr(table, key, "", prefixText, "not an IP prefix")
		}
		p = p.Masked()
		fields := t[key]
		if err := checkFields(table, key, fields, "advertise", "blackhole", "distance", "ifname", "nexthop", "nexthop-vrf"); err != nil {
			return err
		}
		if raw, ok := fields["blackhole"]; ok {
			s, err := scalar(table, key, "blackhole", raw)
			if err != nil {
				return err
			}
			if strings.Contains(s, "true") {
				return entryErr(table, key, "blackhole", s, "blackhole routes are not modelled")
			}
		}
		raw, ok := fields["ifname"]
		if !ok {
			return entryErr(table, key, "ifname", noValue, "required (next-hop resolution is not modelled)")
		}
		ifname, err := scalar(table, key, "ifname", raw)
		if err != nil {
			return err
		}
		if strings.Contains(ifname, ",") {
			return entryErr(table, key, "ifname", ifname, "ECMP static routes are not modelled")
		}
		if nh, ok := fields["nexthop"].(string); ok && strings.Contains(nh, ",") {
			return entryErr(table, key, "nexthop", nh, "ECMP static routes are not modelled")
		}
		if err := v.checkInterface(table, key, "ifname", ifname); err != nil {
			return err
		}
		if other, dup := seen[p.String()]; dup {
			return entryErr(table, key, "", noValue, "same prefix %s as %s|%s", p, table, other)
		}
		seen[p.String()] = key
		v.cfg.Routes = append(v.cfg.Routes, Route{Prefix: p.String(), IfName: ifname})
	}
	slices.SortFunc(v.cfg.Routes, func(a, b Route) int { return strings.Compare(a.Prefix, b.Prefix) })
	return nil
}
