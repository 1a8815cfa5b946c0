// Package doccheck holds the hand-written Markdown pages to what they
// name, for what cannot be generated: links and anchors, flags, config keys
// and metrics named in prose, runbooks, the folder map. It reads lines with
// regular expressions, outside fenced code; every problem names the line.
package doccheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Doc is a Markdown page.
type Doc struct {
	Path     string // slash-separated, relative to the repository root
	Lines    []string
	Headings []Heading
}

// Heading is an ATX heading outside fenced code.
type Heading struct {
	Level int
	Title string
	Line  int // 1-based
}

// Load reads page, a path relative to root.
func Load(root, page string) (*Doc, error) {
	data, err := os.ReadFile(filepath.Join(root, page))
	if err != nil {
		return nil, err
	}
	return Parse(page, string(data)), nil
}

var headingRE = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)

// Parse reads Markdown text; path names it in messages and places its links.
func Parse(path, text string) *Doc {
	d := &Doc{Path: path, Lines: strings.Split(text, "\n")}
	d.prose(func(i int, l string) {
		if m := headingRE.FindStringSubmatch(l); m != nil {
			d.Headings = append(d.Headings, Heading{Level: len(m[1]), Title: m[2], Line: i + 1})
		}
	})
	return d
}

// prose calls fn for each line outside fenced code (i is 0-based).
func (d *Doc) prose(fn func(i int, l string)) {
	fenced := false
	for i, l := range d.Lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
		} else if !fenced {
			fn(i, l)
		}
	}
}

// Section is the prose (fenced code left out) of the section titled title,
// up to the next heading of its level or higher, and its heading's line.
func (d *Doc) Section(title string) (string, int, error) {
	for i, h := range d.Headings {
		if h.Title != title {
			continue
		}
		end := len(d.Lines) + 1
		for _, next := range d.Headings[i+1:] {
			if next.Level <= h.Level {
				end = next.Line
				break
			}
		}
		var body []string
		d.prose(func(i int, l string) {
			if i >= h.Line && i < end-1 {
				body = append(body, l)
			}
		})
		return strings.Join(body, "\n"), h.Line, nil
	}
	return "", 0, fmt.Errorf("%s: no section %q (a heading the docs tests read)", d.Path, title)
}

var codeRE = regexp.MustCompile("`([^`\n]+)`")

// Code returns the code spans of a text, in order.
func Code(s string) []string {
	var out []string
	for _, m := range codeRE.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// Anchor is GitHub's anchor of a heading title: lower case, spaces to
// hyphens, punctuation other than - and _ dropped.
func Anchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Anchors are the heading anchors of d, repeats numbered as GitHub does.
func (d *Doc) Anchors() map[string]bool {
	out, seen := map[string]bool{}, map[string]int{}
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
