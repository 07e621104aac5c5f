package controlplane

import "archsim/configs"

// Config is the CPU's description (configs/controlplane.yaml, which gives
// every value's source or reasoning).
type Config struct {
	Name            string `mapstructure:"name"`
	PCIeLatencyNs   int64  `mapstructure:"pcie_latency_ns"`
	RegisterReadNs  int64  `mapstructure:"register_read_ns"`
	RegisterWriteNs int64  `mapstructure:"register_write_ns"`
	EntryAddNs      int64  `mapstructure:"entry_add_ns"`
	EntryModifyNs   int64  `mapstructure:"entry_modify_ns"`
	EntryDeleteNs   int64  `mapstructure:"entry_delete_ns"`
	BatchEntries    int    `mapstructure:"batch_entries"`
	BatchOverheadNs int64  `mapstructure:"batch_overhead_ns"`
	SleepWakeupNs   int64  `mapstructure:"sleep_wakeup_ns"`
}

// ConfigFile is the embedded file the defaults come from.
const ConfigFile = "controlplane.yaml"

// LoadConfig reads configs/controlplane.yaml with key=value overrides
// (keys as in the file, e.g. controlplane.entry_add_ns=5000); a value out
// of range is an error naming where it was set.
func LoadConfig(sets ...string) (*Config, error) {
	l, err := configs.Load(configs.Source{Base: []string{ConfigFile}, Sets: sets})
	if err != nil {
		return nil, err
	}
	c := &Config{}
	if err := l.Decode("controlplane", c); err != nil {
		return nil, err
	}
	const us = 1e3
	if err := l.CheckRanges("controlplane", []configs.Range{
		configs.In("pcie_latency_ns", float64(c.PCIeLatencyNs), 0, 1e6*us),
		configs.In("register_read_ns", float64(c.RegisterReadNs), 0, 1e6*us),
		configs.In("register_write_ns", float64(c.RegisterWriteNs), 0, 1e6*us),
		configs.In("entry_add_ns", float64(c.EntryAddNs), 0, 1e6*us),
		configs.In("entry_modify_ns", float64(c.EntryModifyNs), 0, 1e6*us),
		configs.In("entry_delete_ns", float64(c.EntryDeleteNs), 0, 1e6*us),
		configs.In("batch_entries", float64(c.BatchEntries), 1, 1e9),
		configs.In("batch_overhead_ns", float64(c.BatchOverheadNs), 0, 1e6*us),
		configs.In("sleep_wakeup_ns", float64(c.SleepWakeupNs), 0, 1e6*us),
	}); err != nil {
		return nil, err
	}
	return c, nil
}
