package readme

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
)

// CheckLayout holds a layout table (column 0 the paths, column 1 what they
// are) to the tree: files are the repository's files, slash-separated and
// relative to its root; ignore are paths that need no row. Every named path
// exists; every file is covered by a named path, its own or a folder's (a
// folder is covered when named, or when all of its entries are); and a
// row that names a folder's .go files or sub-folders in column 1 (`probe.go`,
// `payload/`) names them all (tests and testdata aside).
func CheckLayout(t *Table, files []string, ignore []string) []string {
	problems := t.Check()
	dirs := map[string]bool{"": true}
	isFile := map[string]bool{}
	for _, f := range files {
		isFile[f] = true
		for d := path.Dir(f); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	named := map[string]bool{}
	for _, p := range ignore {
		named[strings.TrimSuffix(p, "/")] = true
	}
	for _, r := range t.Rows {
		for _, c := range Code(r.Cell(0)) {
			p := strings.TrimSuffix(c, "/")
			if !isFile[p] && !dirs[p] {
				problems = append(problems, fmt.Sprintf("%s: %s does not exist: remove it or fix the path", t.Where(r.Line), c))
				continue
			}
			named[p] = true
			if dirs[p] {
				problems = append(problems, checkListing(t, r, p, files)...)
			}
		}
	}
	var missing []string
	var cover func(dir string)
	cover = func(dir string) {
		for _, child := range children(dir, files) {
			switch {
			case named[child]:
			case dirs[child] && hasNamedBelow(child, named):
				cover(child)
			default:
				missing = append(missing, child)
			}
		}
	}
	cover("")
	for _, m := range missing {
		if dirs[m] {
			m += "/"
		}
		problems = append(problems, fmt.Sprintf("%s: %s is in the tree but not in the table: add a row (or name it in the row of its folder)", t.Where(t.end()), m))
	}
	return problems
}

// checkListing: the .go files and sub-folders a row names for dir are all
// of them, when it names any.
func checkListing(t *Table, r Row, dir string, files []string) []string {
	var goFiles, subdirs []string
	for _, c := range children(dir, files) {
		base := path.Base(c)
		switch {
		case slices.ContainsFunc(files, func(f string) bool { return strings.HasPrefix(f, c+"/") }):
			if base != "testdata" {
				subdirs = append(subdirs, base+"/")
			}
		case strings.HasSuffix(base, ".go") && !strings.HasSuffix(base, "_test.go"):
			goFiles = append(goFiles, base)
		}
	}
	listed := Code(r.Cell(1))
	var problems []string
	for _, group := range [][]string{goFiles, subdirs} {
		mentioned := false
		for _, g := range group {
			mentioned = mentioned || slices.Contains(listed, g)
		}
		if !mentioned {
			continue
		}
		for _, g := range group {
			if !slices.Contains(listed, g) {
				problems = append(problems, fmt.Sprintf("%s: the row of %s/ lists its entries but not %s", t.Where(r.Line), dir, g))
			}
		}
	}
	return problems
}

// children are the direct entries (files and folders) of dir.
func children(dir string, files []string) []string {
	set := map[string]bool{}
	for _, f := range files {
		rest, ok := f, true
		if dir != "" {
			rest, ok = strings.CutPrefix(f, dir+"/")
		}
		if !ok {
			continue
		}
		first, _, _ := strings.Cut(rest, "/")
		set[path.Join(dir, first)] = true
	}
	out := make([]string, 0, len(set))
	for c := range set {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

func hasNamedBelow(dir string, named map[string]bool) bool {
	for p := range named {
		if strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}
