package readme

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

var linkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// Anchors are the heading anchors of d, as GitHub numbers repeats (x, x-1).
func (d *Doc) Anchors() map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, h := range d.Headings {
		a := Anchor(h.Title)
		if n := seen[a]; n > 0 {
			out[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// CheckLinks reports relative links of d, outside fenced code, whose file
// (relative to dir) or heading anchor does not exist: `[x](#a)`,
// `[x](OTHER.md#a)`, `[x](path)`.
func (d *Doc) CheckLinks(dir string) []string {
	var problems []string
	d.prose(0, len(d.Lines), func(i int, l string) {
		for _, m := range linkRE.FindAllStringSubmatch(l, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			other := d
			if file != "" {
				data, err := os.ReadFile(filepath.Join(dir, file))
				if err != nil {
					if _, serr := os.Stat(filepath.Join(dir, file)); serr != nil {
						problems = append(problems, fmt.Sprintf("%s:%d: link to %s: no such file", d.Path, i+1, target))
						continue
					}
				}
				if anchor == "" {
					continue
				}
				other = Parse(file, string(data))
			}
			if anchor != "" && !other.Anchors()[anchor] {
				problems = append(problems, fmt.Sprintf("%s:%d: link to %s: %s has no heading with anchor #%s", d.Path, i+1, target, other.Path, anchor))
			}
		}
	})
	return problems
}
