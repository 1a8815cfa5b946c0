package doccheck

import (
	"fmt"
	"maps"
	"slices"
)

// CheckRunbooks holds a runbooks page, one level-2 heading per alert, to
// the alerts: anchors maps each alert to the anchor of its runbook_url.
func (d *Doc) CheckRunbooks(anchors map[string]string) []string {
	var problems []string
	for _, h := range d.Headings {
		if _, ok := anchors[h.Title]; h.Level == 2 && !ok {
			problems = append(problems, fmt.Sprintf("%s:%d: runbook %s is for no alert of alerts/: remove it or fix the name", d.Path, h.Line, h.Title))
		}
	}
	have := d.Anchors()
	for _, name := range slices.Sorted(maps.Keys(anchors)) {
		if !have[anchors[name]] {
			problems = append(problems, fmt.Sprintf("%s: alert %s links runbook anchor #%s, which no heading has: add a heading ## %s", d.Path, name, anchors[name], name))
		}
	}
	return problems
}
