package programs

// RunRegisterAction runs a register action on one cell outside a control
// block (the traffic manager's deflect-on-drop signal, DoDSignal) and
// returns its output. The caller provides x.PHV (the action's body may read
// fields such as std.tstamp) and x.NowPs; OnRegister sees the action as it
// does inside a control block.
func (x *Exec) RunRegisterAction(ra *RegisterAction, index int64) int64 {
	k := x.compile()
	c := k.regCall(&RegisterCall{Action: ra, Index: &ConstExpr{Val: index, T: Type{Bits: 64}}, Pos: ra.Pos})
	return c.run(x)
}
