package validation

// KnownDeviations lists the claims the model does not meet today, each with
// the reason. `archsim validate` still reports them as FAIL (and exits 1);
// `go test` checks that they still run, that every other claim passes, and
// that a listed claim that starts passing is taken off this list.
var KnownDeviations = map[string]string{
	"pie.table3.cp.sram":     "payload-gateway rule: egress_qid_table and udp_table (one constant entry) cost a gateway instead of 4 hash-way RAMs each; SDE 9.2 may not have applied it",
	"pie.table3.cp.hash":     "same as cp.sram: the two one-entry tables use no hash ways in the model",
	"pie.table3.cp.salu":     "the model divides by 48 meter ALUs; the paper's column matches a denominator of 96",
	"pie.table3.dp.hash":     "gateway range compares are counted as at most 12 hash bits each; bf-p4c's exact use per gateway is not modelled",
	"pie.table3.dp.vliw":     "instruction rows are estimated as two actions per row; bf-p4c's row sharing depends on PHV container overlap",
	"pie.table3.dp.xbar":     "crossbar bytes are counted per field byte, not per PHV container byte after packing",
	"pie.table3.dp.salu":     "the model divides by 48 meter ALUs; the paper's column matches a denominator of 96",
	"pie.table3.table.sram":  "the 100 000-entry exact table's action data (33 bits) is put in an 8-byte action-data RAM; bf-p4c may split it between immediate and RAM",
	"pie.table3.table.hash":  "see dp.hash and cp.hash",
	"pie.table3.table.xbar":  "see dp.xbar",
	"pie.table3.table.salu":  "the model divides by 48 meter ALUs; the paper's column matches a denominator of 96",
	"protego.footprint.sram": "the model's Protego programs hold only the state the paper describes, on a minimal router",
}
