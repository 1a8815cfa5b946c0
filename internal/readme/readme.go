// Package readme reads README.md and docs/*.md the way GitHub renders them
// — headings, sections and pipe tables, outside fenced code — so that tests
// can hold what cannot be generated (links, runbooks, the folder map, prose
// that names a metric's label) to the program
// (cmd/kafka_bench_exporter/readme_test.go). Every problem it reports names
// the line to fix.
package readme

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Doc is a parsed Markdown file.
type Doc struct {
	Path     string
	Lines    []string
	Headings []Heading
}

// Heading is an ATX heading outside fenced code.
type Heading struct {
	Level int
	Title string
	Line  int // 1-based
}

// Section is a heading and the lines up to the next heading of the same or
// a higher level.
type Section struct {
	Heading
	End int // 1-based line after the last line of the section
}

// Table is a pipe table: a header row, a delimiter row and body rows.
type Table struct {
	Section string
	Line    int // of the header row
	Header  []string
	Rows    []Row
	doc     *Doc
}

// Row is one body row of a table.
type Row struct {
	Line  int
	Cells []string // unescaped: `\|` is `|`
}

// LoadAll reads README.md and every docs/**/*.md below root, README first.
func LoadAll(root string) ([]*Doc, error) {
	paths := []string{filepath.Join(root, "README.md")}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasSuffix(p, ".md") {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	var docs []*Doc
	for _, p := range paths {
		d, err := Load(p)
		if err != nil {
			return nil, err
		}
		docs = append(docs, d)
	}
	return docs, nil
}

// Load reads and parses path.
func Load(path string) (*Doc, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, string(data)), nil
}

var headingRE = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)

// Parse parses Markdown text; path only names it in messages.
func Parse(path, text string) *Doc {
	d := &Doc{Path: path, Lines: strings.Split(text, "\n")}
	d.prose(0, len(d.Lines), func(i int, l string) {
		if m := headingRE.FindStringSubmatch(l); m != nil {
			d.Headings = append(d.Headings, Heading{Level: len(m[1]), Title: m[2], Line: i + 1})
		}
	})
	return d
}

// prose calls fn for each line index in [from, to) outside fenced code.
func (d *Doc) prose(from, to int, fn func(i int, l string)) {
	fenced := false
	for i := from; i < to; i++ {
		l := d.Lines[i]
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			fn(i, l)
		}
	}
}

// Section finds the section whose heading title is title.
func (d *Doc) Section(title string) (Section, error) {
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
		return Section{Heading: h, End: end}, nil
	}
	return Section{}, fmt.Errorf("%s: no section %q (a heading the docs tests read)", d.Path, title)
}

// Text is the section's body, without its heading.
func (d *Doc) Text(s Section) string {
	return strings.Join(d.Lines[s.Line:s.End-1], "\n")
}

// Tables returns the pipe tables of a section, sub-sections included.
func (d *Doc) Tables(s Section) []*Table {
	var tables []*Table
	fenced := false
	for i := s.Line; i < s.End-1; i++ {
		l := d.Lines[i]
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !isRow(l) || i+1 >= s.End-1 || !isDelimiter(d.Lines[i+1]) {
			continue
		}
		t := &Table{Section: s.Title, Line: i + 1, Header: cells(l), doc: d}
		j := i + 2
		for ; j < s.End-1 && isRow(d.Lines[j]); j++ {
			t.Rows = append(t.Rows, Row{Line: j + 1, Cells: cells(d.Lines[j])})
		}
		tables = append(tables, t)
		i = j - 1
	}
	return tables
}

// Table finds the table of section title whose first header cell is first.
func (d *Doc) Table(title, first string) (*Table, error) {
	s, err := d.Section(title)
	if err != nil {
		return nil, err
	}
	for _, t := range d.Tables(s) {
		if len(t.Header) > 0 && t.Header[0] == first {
			return t, nil
		}
	}
	return nil, fmt.Errorf("%s:%d: section %q has no table whose first column is %q", d.Path, s.Line, title, first)
}

// Where names a line of the table for a message: file, line, table, section.
func (t *Table) Where(line int) string {
	return fmt.Sprintf("%s:%d (table %q of section %q)", t.doc.Path, line, strings.Join(t.Header, " | "), t.Section)
}

// end is the line after the table, where a missing row goes.
func (t *Table) end() int {
	if len(t.Rows) == 0 {
		return t.Line + 2
	}
	return t.Rows[len(t.Rows)-1].Line + 1
}

// Check reports rows whose cell count differs from the header's: an
// unescaped | inside code splits a cell on GitHub.
func (t *Table) Check() []string {
	var problems []string
	for _, r := range t.Rows {
		if len(r.Cells) != len(t.Header) {
			problems = append(problems, fmt.Sprintf("%s: row has %d cells, the header %d: escape | inside a cell as \\|",
				t.Where(r.Line), len(r.Cells), len(t.Header)))
		}
	}
	return problems
}

// Cell returns column i of r, or "" when the row is short.
func (r Row) Cell(i int) string {
	if i < len(r.Cells) {
		return r.Cells[i]
	}
	return ""
}

func isRow(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "|") }

var delimiterRE = regexp.MustCompile(`^\s*\|(\s*:?-+:?\s*\|)+\s*$`)

func isDelimiter(l string) bool { return delimiterRE.MatchString(l) }

// cells splits a row at unescaped pipes, as GitHub does (code spans
// included), and unescapes \|.
func cells(l string) []string {
	l = strings.TrimSpace(l)
	l = strings.TrimPrefix(l, "|")
	if strings.HasSuffix(l, "|") && !strings.HasSuffix(l, `\|`) {
		l = l[:len(l)-1]
	}
	var out []string
	var cur strings.Builder
	for i := 0; i < len(l); i++ {
		switch {
		case l[i] == '\\' && i+1 < len(l) && l[i+1] == '|':
			cur.WriteByte('|')
			i++
		case l[i] == '|':
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(l[i])
		}
	}
	return append(out, strings.TrimSpace(cur.String()))
}

var codeRE = regexp.MustCompile("`([^`\n]+)`")

// Code returns the code spans of a cell or text, in order.
func Code(s string) []string {
	var out []string
	for _, m := range codeRE.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// CodeIn returns the code spans of a section's prose, fenced code left out.
func (d *Doc) CodeIn(s Section) []string {
	var out []string
	d.prose(s.Line, s.End-1, func(_ int, l string) { out = append(out, Code(l)...) })
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

// All is the whole document as one section.
func (d *Doc) All() Section {
	return Section{Heading: Heading{Title: "(whole file)"}, End: len(d.Lines) + 1}
}
