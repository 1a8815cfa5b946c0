// Command suitetime prints where the time of a scripts/test.sh run went: one
// row per phase the script marked, one per test package with the seconds
// go test reported, and the slowest tests.
//
//	go run ./internal/suitetime -marks FILE [-slowest N] [GO-TEST-OUTPUT...]
//
// FILE holds lines "begin<TAB>name<TAB>unix-nanoseconds" and
// "end<TAB>name<TAB>unix-nanoseconds" (scripts/test.sh writes them around
// its steps; steps in the background overlap the others). The go test
// outputs are read for their "ok", "FAIL" and "--- PASS/FAIL" lines.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

func main() {
	marks := flag.String("marks", "", "file of begin/end marks written by scripts/test.sh")
	slowest := flag.Int("slowest", 10, "how many of the slowest tests to list")
	flag.Parse()
	if err := run(os.Stdout, *marks, *slowest, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "suitetime:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, marksFile string, slowest int, outputs []string) error {
	var phases []phase
	if marksFile != "" {
		f, err := os.Open(marksFile)
		if err != nil {
			return err
		}
		phases, err = readMarks(f)
		_ = f.Close() // read only: nothing to lose
		if err != nil {
			return fmt.Errorf("%s: %w", marksFile, err)
		}
	}
	var res results
	for _, name := range outputs {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		err = res.read(f)
		_ = f.Close() // read only: nothing to lose
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return write(w, phases, res, slowest)
}

// A phase is one step of the script, from its begin mark to its end mark.
type phase struct {
	name       string
	begin, end time.Time
}

func readMarks(r io.Reader) ([]phase, error) {
	var phases []phase
	open := map[string]int{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			return nil, fmt.Errorf("line %d = %q: want kind<TAB>name<TAB>unix-nanoseconds", n, line)
		}
		ns, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: time %q: %w", n, f[2], err)
		}
		at := time.Unix(0, ns)
		switch f[0] {
		case "begin":
			if _, ok := open[f[1]]; ok {
				return nil, fmt.Errorf("line %d: phase %q begins again before it ended", n, f[1])
			}
			open[f[1]] = len(phases)
			phases = append(phases, phase{name: f[1], begin: at})
		case "end":
			i, ok := open[f[1]]
			if !ok {
				return nil, fmt.Errorf("line %d: phase %q ends without a begin", n, f[1])
			}
			delete(open, f[1])
			phases[i].end = at
		default:
			return nil, fmt.Errorf("line %d: kind %q: want begin or end", n, f[0])
		}
	}
	return phases, sc.Err()
}

type pkgResult struct {
	name    string
	outcome string // ok, FAIL
	seconds float64
}

type testResult struct {
	pkg     string // the package of the next summary line; go test prints a package's output whole
	name    string
	outcome string // PASS, FAIL
	seconds float64
}

type results struct {
	pkgs  []pkgResult
	tests []testResult
}

var (
	// "ok  	github.com/x/y	12.345s" (go test's summary of a package),
	// "FAIL	github.com/x/y	12.345s".
	pkgLine = regexp.MustCompile(`^(ok|FAIL)\s+(\S+)\s+([0-9.]+)s\b`)
	// "--- PASS: TestX (1.23s)" at the start of a line: top-level tests
	// only (subtests are indented).
	testLine = regexp.MustCompile(`^--- (PASS|FAIL): (\S+) \(([0-9.]+)s\)`)
)

func (r *results) read(in io.Reader) error {
	pending := len(r.tests) // tests not yet given their package
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := pkgLine.FindStringSubmatch(line); m != nil {
			s, err := strconv.ParseFloat(m[3], 64)
			if err != nil {
				return err
			}
			r.pkgs = append(r.pkgs, pkgResult{name: m[2], outcome: m[1], seconds: s})
			for i := pending; i < len(r.tests); i++ {
				r.tests[i].pkg = m[2]
			}
			pending = len(r.tests)
		} else if m := testLine.FindStringSubmatch(line); m != nil {
			s, err := strconv.ParseFloat(m[3], 64)
			if err != nil {
				return err
			}
			r.tests = append(r.tests, testResult{name: m[2], outcome: m[1], seconds: s})
		}
	}
	return sc.Err()
}

func write(w io.Writer, phases []phase, res results, slowest int) error {
	bw := &tableWriter{w: w}
	if len(phases) > 0 {
		start, end := phases[0].begin, phases[0].end
		for _, p := range phases {
			if p.begin.Before(start) {
				start = p.begin
			}
			if p.end.After(end) {
				end = p.end
			}
		}
		bw.printf("| phase | starts at s | seconds |\n")
		bw.printf("|---|---:|---:|\n")
		for _, p := range phases {
			if p.end.IsZero() {
				bw.printf("| %s | %.0f | (not ended) |\n", p.name, p.begin.Sub(start).Seconds())
				continue
			}
			bw.printf("| %s | %.0f | %.0f |\n", p.name, p.begin.Sub(start).Seconds(), p.end.Sub(p.begin).Seconds())
		}
		bw.printf("| **wall time** | | **%.0f** |\n", end.Sub(start).Seconds())
	}
	if len(res.pkgs) > 0 {
		pkgs := append([]pkgResult(nil), res.pkgs...)
		sort.SliceStable(pkgs, func(i, j int) bool { return pkgs[i].seconds > pkgs[j].seconds })
		var sum float64
		for _, p := range pkgs {
			sum += p.seconds
		}
		bw.printf("\n")
		bw.printf("| test package | result | seconds |\n")
		bw.printf("|---|---|---:|\n")
		for _, p := range pkgs {
			bw.printf("| %s | %s | %.1f |\n", p.name, p.outcome, p.seconds)
		}
		bw.printf("| %d packages, summed | | %.1f |\n", len(pkgs), sum)
	}
	if len(res.tests) > 0 && slowest > 0 {
		tests := append([]testResult(nil), res.tests...)
		sort.SliceStable(tests, func(i, j int) bool { return tests[i].seconds > tests[j].seconds })
		tests = tests[:min(slowest, len(tests))]
		bw.printf("\n")
		bw.printf("| slowest tests (of %d) | result | seconds |\n", len(res.tests))
		bw.printf("|---|---|---:|\n")
		for _, t := range tests {
			name := t.name
			if t.pkg != "" {
				name = t.pkg + "." + name
			}
			bw.printf("| %s | %s | %.1f |\n", name, t.outcome, t.seconds)
		}
	}
	return bw.err
}

// tableWriter keeps the first write error; later writes are skipped.
type tableWriter struct {
	w   io.Writer
	err error
}

func (t *tableWriter) printf(format string, a ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, format, a...)
	}
}
