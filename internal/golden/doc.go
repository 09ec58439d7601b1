// Package golden compares what a test produced with a file kept under
// the package's testdata, and rewrites the file instead when the test
// binary runs with -update:
//
//	golden.Check(t, "testdata/report.txt", buf.Bytes())
//
//	go test ./report -update   # rewrite every golden file of ./report
//
// It is for tests only. Check is safe to call from parallel tests that
// use different files.
package golden
