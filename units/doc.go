// Package units formats the numbers latlab shows people: durations,
// rates, byte counts and percentages, in one style for every text and
// HTML output. JSON and CSV keep plain SI numbers (seconds, requests per
// second, bytes) and do not use this package.
//
// Durations read with microsecond resolution and about four significant
// digits, whether they come as a time.Duration or as float64 seconds:
//
//	units.Duration(11300 * time.Nanosecond) // "11.3µs"
//	units.Seconds(0.002415)                 // "2.415ms"
//	units.Signed(-0.0000523)                // "−52.3µs"
//
// A measured rate has two decimals below 100/s and none from there up; a
// rate as a spec gives it is written exactly:
//
//	units.Rate(1234.56)  // "1235/s"
//	units.ExactRate(2.5) // "2.5/s"
//
// ParseRate reads a rate as people write it, on the command line (-r) and
// in every file alike: 500, 500/s, 6000/m, 5/100ms.
//
// DurationUnit, BytesUnit and Prefix name the unit a magnitude is written
// in, so that a chart's axis (package report/plot) labels its ticks in the
// units the tables use: "ms", "kB", or the SI prefix of a plain count.
//
// A value that is not a number (NaN, as a statistic of no runs is) reads
// "n/a". Every function is pure and safe to call concurrently.
package units
