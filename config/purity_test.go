package config

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ioFuncs read files or the environment; ioHelpers are the resolve step's
// functions around them.
var (
	ioFuncs = map[string][]string{
		"os":        {"ReadFile", "Open", "OpenFile", "OpenInRoot", "OpenRoot", "Stat", "Lstat", "ReadDir", "DirFS", "Getenv", "LookupEnv", "Environ", "ExpandEnv", "Expand"},
		"io/ioutil": {"ReadFile", "ReadDir", "ReadAll"},
		"io/fs":     {"ReadFile", "ReadDir", "Stat"},
	}
	ioHelpers = []string{"readFile", "readFileAbs", "readPayload", "reader"}
)

// Decoding and validation are pure: besides Load (the configuration file
// itself) and the resolve step, no file of config nor of sasl (whose
// mechanisms read through the resolve step's Reader) nor of secret (whose
// Source reads through it too) reads a file or the environment, directly
// or through the resolve step's helpers.
func TestOnlyLoadAndResolveRead(t *testing.T) {
	allowed := []string{"load.go", "resolve.go"}
	for _, dir := range []string{".", "../sasl", "../secret"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatalf("no Go files in %s", dir)
		}
		for _, f := range files {
			base := filepath.Base(f)
			if strings.HasSuffix(base, "_test.go") || dir == "." && slices.Contains(allowed, base) {
				continue
			}
			for _, use := range ioUses(t, f, dir == ".") {
				t.Errorf("%s: %s: only Load (load.go) and the resolve step (resolve.go) read files and the environment", f, use)
			}
		}
	}
}

// ioUses are the reads of files and the environment in file, and with
// helpers the uses of the resolve step's helpers.
func ioUses(t *testing.T, file string, helpers bool) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{} // local name -> import path
	for _, imp := range f.Imports {
		path := strings.Trim(imp.Path.Value, `"`)
		if _, ok := ioFuncs[path]; !ok {
			continue
		}
		name := filepath.Base(path)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = path
	}
	var uses []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && slices.Contains(ioFuncs[names[id.Name]], x.Sel.Name) {
				uses = append(uses, fset.Position(x.Pos()).String()+" "+id.Name+"."+x.Sel.Name)
			}
		case *ast.Ident:
			if helpers && slices.Contains(ioHelpers, x.Name) {
				uses = append(uses, fset.Position(x.Pos()).String()+" "+x.Name)
			}
		}
		return true
	})
	return uses
}
