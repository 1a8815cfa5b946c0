// Command validate checks Kubernetes manifests offline, the way the API
// server would accept them: every YAML document is decoded strictly into its
// Go type from k8s.io/api or the Prometheus Operator's API module (unknown
// or misspelt fields, wrong types, duplicate keys and unknown kinds are
// errors), then names, labels, selectors, ports and the references between
// fields are checked with apimachinery's validation functions.
//
//	go run -C deploy/validate . FILE...     (- reads standard input)
//
// It prints one line per problem and exits 1 if there is any, else it prints
// the kinds it checked. A nested module, so that k8s.io/api stays out of the
// exporter's go.mod; the tests of package deploy run it on deploy/kubernetes
// and on the Helm chart's output.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: validate FILE... (- for standard input)")
		os.Exit(2)
	}
	failed := false
	for _, name := range os.Args[1:] {
		n, err := validateFile(name)
		if err != nil {
			failed = true
			continue
		}
		fmt.Printf("%s: %s\n", name, n)
	}
	if failed {
		os.Exit(1)
	}
}

// validateFile prints every problem of one file and returns a summary of
// the objects it holds.
func validateFile(name string) (string, error) {
	var r io.Reader = os.Stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return "", err
		}
		defer func() { _ = f.Close() }() // opened for reading: nothing to lose
		r = f
	}
	objs, errs := Validate(r)
	for _, e := range errs {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, e)
	}
	if len(errs) > 0 {
		return "", fmt.Errorf("%s: %d problems", name, len(errs))
	}
	var kinds []string
	for _, o := range objs {
		kinds = append(kinds, o.Kind+"/"+o.Name)
	}
	sort.Strings(kinds)
	return fmt.Sprintf("%d objects valid: %s", len(objs), strings.Join(kinds, " ")), nil
}
