package doccheck

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

var linkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// CheckLinks reports each relative link of d, outside fenced code, whose
// file (below root, d's folder) or heading anchor does not exist:
// [x](#a), [x](page.md#a), [x](path).
func (d *Doc) CheckLinks(root string) []string {
	var problems []string
	d.prose(func(i int, l string) {
		for _, m := range linkRE.FindAllStringSubmatch(l, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			other := d
			if file != "" {
				page := path.Join(path.Dir(d.Path), file)
				if strings.HasPrefix(page, "../") {
					problems = append(problems, fmt.Sprintf("%s:%d: link to %s: outside the folder the page ships in", d.Path, i+1, target))
					continue
				}
				if _, err := os.Stat(filepath.Join(root, page)); err != nil {
					problems = append(problems, fmt.Sprintf("%s:%d: link to %s: no such file", d.Path, i+1, target))
					continue
				}
				if anchor == "" {
					continue
				}
				var err error
				if other, err = Load(root, page); err != nil {
					problems = append(problems, fmt.Sprintf("%s:%d: link to %s: %v", d.Path, i+1, target, err))
					continue
				}
			}
			if !other.Anchors()[anchor] {
				problems = append(problems, fmt.Sprintf("%s:%d: link to %s: %s has no heading with anchor #%s", d.Path, i+1, target, other.Path, anchor))
			}
		}
	})
	return problems
}

// CheckTables reports table rows whose cell count differs from their
// header's: a | inside code splits a cell on GitHub unless escaped as \|.
func (d *Doc) CheckTables() []string {
	var problems []string
	header := -1
	d.prose(func(i int, l string) {
		if !strings.HasPrefix(strings.TrimSpace(l), "|") {
			header = -1
			return
		}
		n := strings.Count(l, "|") - strings.Count(l, `\|`)
		switch {
		case header < 0:
			header = n
		case n != header:
			problems = append(problems, fmt.Sprintf("%s:%d: table row has %d cells, its header %d: escape | inside a cell as \\|", d.Path, i+1, n-1, header-1))
		}
	})
	return problems
}
