// Package textsafe keeps what latlab prints for terminals from controlling
// them. Names and messages come from specs, results databases and servers
// that someone else may have written: a variant called "a\x1b]0;owned\a"
// would retitle the terminal of whoever reads its report, and one holding
// a newline would forge a line of it. Escape writes each control
// character of such a string as Go writes it in a quoted string (\x1b,
// \n, \u009b); NewWriter does the same to all that passes through it but
// the newlines and tabs that lay a text out. Everything else, other
// scripts and symbols included, is left as it is.
//
//	fmt.Fprintf(w, "variant %s\n", textsafe.Escape(name))
//	report.WriteText(textsafe.NewWriter(os.Stdout))
//
// Text outputs use both: Escape for each name or message in a line, the
// writer as a net under the whole. JSON and CSV are data and are written
// as they are; HTML is escaped by html/template.
//
// Everything here is safe for concurrent use.
package textsafe
