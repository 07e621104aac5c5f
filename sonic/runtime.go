package sonic

// Runtime is a switch's running configuration: CONFIG_DB and what it
// programmed. Changes are atomic: a change that any layer refuses leaves
// CONFIG_DB and the programmed state as they were. It is not safe for
// concurrent use.
type Runtime struct {
	caps Capabilities
	db   DB
	cfg  *Config
	gen  int
}

// NewRuntime returns a switch with the given capabilities and nothing
// configured.
func NewRuntime(caps Capabilities) *Runtime {
	return &Runtime{caps: caps, db: DB{}}
}

// Apply replaces CONFIG_DB with db (config reload) once the whole of it is
// valid; otherwise it returns the first error and changes nothing.
//
// orchagent's rules for SWITCH_TRIMMING|GLOBAL (switchorch) hold across
// applies: once trimming was programmed, neither the key nor one of its
// fields may be removed ("ASIC and CONFIG DB are diverged"); a value whose
// resolution mode is not active (tc_value in symmetric mode, dscp_value's
// number in from-tc mode, the queue index in dynamic mode) is kept in
// CONFIG_DB but not programmed, so the ASIC keeps its last programmed
// value.
func (r *Runtime) Apply(db DB) error {
	next := cloneDB(db)
	if err := r.checkTrimmingRemoval(next); err != nil {
		return err
	}
	cfg, err := Validate(next, r.caps)
	if err != nil {
		return err
	}
	if cfg.Trimming != nil {
		var last Trimming
		if r.cfg != nil && r.cfg.Trimming != nil {
			last = *r.cfg.Trimming
		}
		keepInactive(cfg.Trimming, last)
	}
	r.db, r.cfg = next, cfg
	r.gen++
	return nil
}

// ApplyPatch applies a JSON Patch to the running CONFIG_DB (`config
// apply-patch`, the generic config updater): all of it or nothing.
func (r *Runtime) ApplyPatch(patch []byte) error {
	next, err := Patch(r.db, patch)
	if err != nil {
		return err
	}
	return r.Apply(next)
}

// Config is the programmed state; nil before the first successful Apply.
// Each apply makes a new Config, so one returned earlier stays as it was;
// it must not be modified.
func (r *Runtime) Config() *Config { return r.cfg }

// DB returns a copy of the running CONFIG_DB.
func (r *Runtime) DB() DB { return cloneDB(r.db) }

// Generation counts the successful applies.
func (r *Runtime) Generation() int { return r.gen }

// checkTrimmingRemoval refuses removing SWITCH_TRIMMING|GLOBAL, or one of
// its fields, once trimming was programmed (switchorch: "operation is not
// supported: ASIC and CONFIG DB are diverged").
func (r *Runtime) checkTrimmingRemoval(next DB) error {
	if r.cfg == nil || r.cfg.Trimming == nil {
		return nil
	}
	const diverged = "operation is not supported: ASIC and CONFIG DB are diverged"
	now, ok := next[trimTable]["GLOBAL"]
	if !ok {
		return entryErr(trimTable, "GLOBAL", "", noValue, "%s (the key cannot be removed once trimming is programmed)", diverged)
	}
	was := r.db[trimTable]["GLOBAL"]
	for _, f := range sortedKeys(was) {
		if _, ok := now[f]; !ok {
			return entryErr(trimTable, "GLOBAL", f, noValue, "%s (a field cannot be removed once trimming is programmed)", diverged)
		}
	}
	return nil
}

// keepInactive gives the values of inactive resolution modes their last
// programmed values (orchagent does not program them).
func keepInactive(t *Trimming, last Trimming) {
	if t.DSCPMode != DSCPValue {
		t.DSCP = last.DSCP
	}
	if t.DSCPMode != DSCPFromTC {
		t.TC = last.TC
	}
	if t.QueueMode != QueueStatic {
		t.Queue = last.Queue
	}
}
