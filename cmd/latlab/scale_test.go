package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestScaleGolden(t *testing.T) {
	inBenchcmp(t)
	for _, name := range []string{"exporter.txt", "memory.csv"} {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "scale", filepath.Join("testdata", "scale", name))
			if code != exitOK || stderr != "" {
				t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr)
			}
			checkGolden(t, filepath.Join("testdata", "scale", name+".golden"), stdout)
		})
	}
}

func TestScaleUnitJSON(t *testing.T) {
	inBenchcmp(t)
	code, stdout, stderr := runCLI(t, "scale", "testdata/scale/exporter.txt", "--unit", "B/op", "--format", "json")
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr)
	}
	var fits []struct {
		Unit    string  `json:"unit"`
		Verdict string  `json:"verdict"`
		Slope   float64 `json:"slope"`
	}
	if err := json.Unmarshal([]byte(stdout), &fits); err != nil {
		t.Fatal(err)
	}
	if len(fits) != 1 || fits[0].Unit != "B/op" || fits[0].Verdict != "linear" || fits[0].Slope < 360 || fits[0].Slope > 376 {
		t.Errorf("got %+v, want one linear B/op fit with slope about 368", fits)
	}
	code, stdout, _ = runCLI(t, "scale", "testdata/scale/exporter.txt", "--unit", "allocs/op")
	if lines := strings.Split(strings.TrimSpace(stdout), "\n"); code != exitOK || lines[len(lines)-1] != "verdict: linear" {
		t.Errorf("exit %d, output %q; want 0 ending in verdict: linear", code, stdout)
	}
}

func TestScaleBadInput(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"csv", []string{"scale", writeIn(t, dir, "a.csv", "n,value\n1,2\n2,x\n")}, "a.csv:3: field value"},
		{"bench", []string{"scale", writeIn(t, dir, "b.txt", "goos: linux\nBenchmarkX/n=1-8 ten 1 ns/op\n")}, "b.txt:2: "},
		{"few sizes", []string{"scale", writeIn(t, dir, "c.csv", "n,value\n1,2\n2,4\n")}, "need at least 3 sizes"},
		{"unit", []string{"scale", writeIn(t, dir, "d.csv", "n,value\n1,2\n2,4\n3,6\n4,8\n"), "--unit", "B/op"}, `no unit "B/op"`},
		{"missing", []string{"scale", filepath.Join(dir, "nope.csv")}, "nope.csv"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != exitUsage || stdout != "" {
				t.Errorf("exit %d, stdout %q; want %d and nothing", code, stdout, exitUsage)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q, want one line containing %q", stderr, tt.want)
			}
		})
	}
}
