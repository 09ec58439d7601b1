// Package layout holds the test that keeps latlab's packages in layers:
// each imports only packages of its own layer or of the layers below it,
// as the README's layout table shows them. It has no code of its own.
package layout
