package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The phases of the marks file with their start offsets and seconds (a
// background phase overlapping the others), the packages of go test's
// summary lines by seconds, and the slowest top-level tests named by the
// package whose summary follows them.
func TestTable(t *testing.T) {
	dir := t.TempDir()
	marks := filepath.Join(dir, "marks")
	const s = 1_000_000_000
	writeFile(t, marks, strings.Join([]string{
		"begin\ttool builds\t" + itoa(100*s),
		"begin\tapt-get installs\t" + itoa(101*s),
		"end\tapt-get installs\t" + itoa(131*s),
		"end\ttool builds\t" + itoa(190*s),
		"begin\tgo test\t" + itoa(190*s),
		"end\tgo test\t" + itoa(400*s),
	}, "\n")+"\n")
	out1 := filepath.Join(dir, "a.out")
	writeFile(t, out1, `=== RUN   TestA
--- PASS: TestA (1.50s)
=== RUN   TestB
    --- PASS: TestB/sub (7.00s)
--- PASS: TestB (7.30s)
PASS
ok  	example.com/m/a	9.100s
--- FAIL: TestC (3.00s)
FAIL
FAIL	example.com/m/c	3.500s
?   	example.com/m/none	[no test files]
`)
	out2 := filepath.Join(dir, "b.out")
	writeFile(t, out2, "--- PASS: TestD (20.00s)\nok  \texample.com/m/d\t21.0s\n")
	var got bytes.Buffer
	if err := run(&got, marks, 3, []string{out1, out2}); err != nil {
		t.Fatal(err)
	}
	want := `| phase | starts at s | seconds |
|---|---:|---:|
| tool builds | 0 | 90 |
| apt-get installs | 1 | 30 |
| go test | 90 | 210 |
| **wall time** | | **300** |

| test package | result | seconds |
|---|---|---:|
| example.com/m/d | ok | 21.0 |
| example.com/m/a | ok | 9.1 |
| example.com/m/c | FAIL | 3.5 |
| 3 packages, summed | | 33.6 |

| slowest tests (of 4) | result | seconds |
|---|---|---:|
| example.com/m/d.TestD | PASS | 20.0 |
| example.com/m/a.TestB | PASS | 7.3 |
| example.com/m/c.TestC | FAIL | 3.0 |
`
	if got.String() != want {
		t.Errorf("got\n%s\nwant\n%s", got.String(), want)
	}
}

// A malformed marks file is an error naming the line, not a table of
// wrong numbers.
func TestMarksErrors(t *testing.T) {
	for _, tc := range []struct{ marks, want string }{
		{"begin\tx\n", `line 1 = "begin\tx": want kind<TAB>name<TAB>unix-nanoseconds`},
		{"end\tx\t5\n", `line 1: phase "x" ends without a begin`},
		{"begin\tx\t5\nbegin\tx\t6\n", `line 2: phase "x" begins again before it ended`},
		{"start\tx\t5\n", `line 1: kind "start": want begin or end`},
		{"begin\tx\tsoon\n", `line 1: time "soon"`},
	} {
		marks := filepath.Join(t.TempDir(), "marks")
		writeFile(t, marks, tc.marks)
		err := run(&bytes.Buffer{}, marks, 0, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("marks %q: error %v, want one containing %q", tc.marks, err, tc.want)
		}
	}
}

// A phase begun but never ended (the script failed in it) shows as such.
func TestPhaseNotEnded(t *testing.T) {
	marks := filepath.Join(t.TempDir(), "marks")
	writeFile(t, marks, "begin\ta\t1000000000\nend\ta\t3000000000\nbegin\tb\t3000000000\n")
	var got bytes.Buffer
	if err := run(&got, marks, 0, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got.String(), "| b | 2 | (not ended) |") {
		t.Errorf("no row for the phase not ended:\n%s", got.String())
	}
}

func writeFile(t *testing.T, name, s string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
