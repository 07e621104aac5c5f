// Package validation holds archsim's checkable claims: each names its
// source (paper section or table), the expected value and tolerance, and a
// runner that measures the value with the model. `archsim validate` runs
// them; a claim the model does not meet stays in the table, failing, with
// its measured value and a note on why.
package validation
