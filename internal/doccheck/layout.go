package doccheck

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
)

// CheckLayout holds the folder map — the table whose header starts
// "| folder |", its rows' first cell naming paths in code, the rest what
// they hold — to files, the repository's files
// (slash-separated); ignore need no row. Every path named exists; every file
// is under a named path; a row that names some of its folder's .go files or
// sub-folders names them all (tests and testdata aside).
func (d *Doc) CheckLayout(files, ignore []string) []string {
	exists, named := map[string]bool{}, map[string]bool{}
	for _, f := range files {
		for p := f; p != "."; p = path.Dir(p) {
			exists[p] = true
		}
	}
	for _, p := range ignore {
		named[p] = true
	}
	var problems []string
	last := 0
	d.prose(func(i int, l string) {
		if strings.HasPrefix(l, "| folder |") || last == i && strings.HasPrefix(l, "|") {
			last = i + 1
		}
		first, rest, _ := strings.Cut(l, " | ")
		if last != i+1 || !strings.HasPrefix(first, "| `") {
			return
		}
		for _, c := range Code(first) {
			p := strings.TrimSuffix(c, "/")
			if !exists[p] {
				problems = append(problems, fmt.Sprintf("%s:%d: %s does not exist: remove it or fix the path", d.Path, i+1, c))
				continue
			}
			named[p] = true
			problems = append(problems, d.listing(i+1, p, Code(rest), files)...)
		}
	})
	reported := map[string]bool{}
	for _, f := range files {
		covered := false
		for p := f; p != "." && !covered; p = path.Dir(p) {
			covered = named[p]
		}
		// A folder none of whose entries is named is one problem.
		miss := path.Dir(f) + "/"
		if miss == "./" || slices.ContainsFunc(slices.Collect(maps.Keys(named)), func(p string) bool { return strings.HasPrefix(p, miss) }) {
			miss = f
		}
		if !covered && !reported[miss] {
			reported[miss] = true
			problems = append(problems, fmt.Sprintf("%s:%d: %s is in the tree but not in the table: add a row (or name it in the row of its folder)", d.Path, last, miss))
		}
	}
	return problems
}

// listing: when listed names some .go files or sub-folders of dir, it names
// them all.
func (d *Doc) listing(line int, dir string, listed, files []string) []string {
	var goFiles, subdirs []string
	for _, f := range files {
		rest, ok := strings.CutPrefix(f, dir+"/")
		sub, _, nested := strings.Cut(rest, "/")
		switch {
		case !ok:
		case nested && sub != "testdata" && !slices.Contains(subdirs, sub+"/"):
			subdirs = append(subdirs, sub+"/")
		case !nested && strings.HasSuffix(sub, ".go") && !strings.HasSuffix(sub, "_test.go"):
			goFiles = append(goFiles, sub)
		}
	}
	var problems []string
	for _, group := range [][]string{goFiles, subdirs} {
		if !slices.ContainsFunc(group, func(g string) bool { return slices.Contains(listed, g) }) {
			continue
		}
		for _, g := range group {
			if !slices.Contains(listed, g) {
				problems = append(problems, fmt.Sprintf("%s:%d: the row of %s/ lists its entries but not %s", d.Path, line, dir, g))
			}
		}
	}
	return problems
}
