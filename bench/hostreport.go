package bench

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// unreachableCell marks a host that could not be measured.
const unreachableCell = "unreachable"

// hostColumns are the per-machine columns of the seeds' tables (seed 004:
// CPU, 内存, IO, 入流量, 出流量), IO split into busy % and MB/s.
var hostColumns = []string{"CPU %", "peak CPU %", "mem %", "disk busy %", "disk read (MB/s)", "disk write (MB/s)", "net in (MB/s)", "net out (MB/s)"}

// hostCells are a host's measurements; "unreachable" and blanks when it
// could not be measured.
func hostCells(h HostRow) []string {
	if h.Unreachable() {
		out := make([]string, len(hostColumns))
		out[0] = unreachableCell
		return out
	}
	return []string{f1(h.CPUPercent), f1(h.CPUPeakPercent), f1(h.MemPercent), f1(h.DiskBusyPercent),
		f2(h.DiskReadMBps), f2(h.DiskWriteMBps), f2(h.NetInMBps), f2(h.NetOutMBps)}
}

// hostAddress is the seeds' ip column: the endpoint's host, or "local" for
// the bench's own machine. It is cut from the text: a redacted URL
// (u:<secret>@) no longer parses.
func hostAddress(h HostRow) string {
	if h.URL == "" {
		return "local"
	}
	shown := config.RedactURL(h.URL) // a row read back may not be redacted yet
	if _, rest, ok := strings.Cut(shown, "://"); ok {
		if i := strings.IndexAny(rest, "/?#"); i >= 0 {
			rest = rest[:i]
		}
		if i := strings.LastIndex(rest, "@"); i >= 0 {
			rest = rest[i+1:]
		}
		if rest != "" {
			return rest
		}
	}
	return shown
}

// writeHostsMarkdown writes the per-machine table, seed 004's layout: per
// scenario one row per machine, with the scenario's TPS repeated as the
// seed does; then why a host was unreachable.
func writeHostsMarkdown(b *strings.Builder, paramKeys []string, results []Result) {
	if !hasHosts(results) {
		return
	}
	b.WriteString("\nPer machine (averages over each scenario; peak CPU is the busiest interval between samples):\n\n")
	h := append(append([]string{}, paramKeys...), "host", "role", "address", "TPS (records/s)", "consumer TPS (records/s)")
	h = append(h, hostColumns...)
	writeMarkdownRow(b, h)
	sep := make([]string, len(h))
	for i := range sep {
		sep[i] = "---"
		if i >= len(paramKeys)+3 {
			sep[i] = "---:"
		}
	}
	writeMarkdownRow(b, sep)
	var errs []string
	for _, r := range results {
		tps, ctps := "-", "-"
		if r.Produce != nil {
			tps = f0(r.Produce.RecordsPerSec())
		}
		if r.Consume != nil {
			ctps = f0(r.Consume.RecordsPerSec())
		}
		for _, host := range r.Hosts {
			row := append(append([]string{}, r.Params...), host.Name, host.Role, hostAddress(host), tps, ctps)
			for _, c := range hostCells(host) {
				row = append(row, orDash(c))
			}
			writeMarkdownRow(b, row)
			if host.Unreachable() {
				errs = append(errs, fmt.Sprintf("%s %s (%s, scenario %s): %s", unreachableCell, host.Name, config.RedactURL(host.URL), r.Name(), config.RedactText(host.Err)))
			}
		}
	}
	for _, e := range errs {
		b.WriteString("\n" + e + "\n")
	}
}

// orDash is Markdown's empty cell.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func hasHosts(results []Result) bool {
	for _, r := range results {
		if len(r.Hosts) > 0 {
			return true
		}
	}
	return false
}

// hostNames are the machines of the run, in row order (every scenario
// measures the same ones).
func hostNames(results []Result) []string {
	for _, r := range results {
		if len(r.Hosts) > 0 {
			names := make([]string, len(r.Hosts))
			for i, h := range r.Hosts {
				names[i] = h.Name
			}
			return names
		}
	}
	return nil
}

// csvHostHeader is one set of host columns per machine, "<host> CPU %".
func csvHostHeader(names []string) []string {
	var out []string
	for _, n := range names {
		for _, c := range hostColumns {
			out = append(out, n+" "+c)
		}
	}
	return out
}

// csvHostCells are a result's host columns, in the order of names.
func csvHostCells(names []string, r Result) []string {
	out := make([]string, 0, len(names)*len(hostColumns))
	for _, n := range names {
		cells := make([]string, len(hostColumns))
		for _, h := range r.Hosts {
			if h.Name == n {
				cells = hostCells(h)
			}
		}
		out = append(out, cells...)
	}
	return out
}

// jsonHostRow is one machine of a scenario; the measurements are left out
// when it was unreachable.
type jsonHostRow struct {
	Name   string `json:"name"`
	Role   string `json:"role"`
	URL    string `json:"url,omitempty"`
	Source string `json:"source,omitempty"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	*jsonHostMeasured
}

type jsonHostMeasured struct {
	CPUPercent        float64 `json:"cpu_percent"`
	CPUPeakPercent    float64 `json:"cpu_peak_percent"`
	MemoryPercent     float64 `json:"memory_percent"`
	DiskBusyPercent   float64 `json:"disk_busy_percent"`
	DiskReadMBPerSec  float64 `json:"disk_read_mb_per_sec"`
	DiskWriteMBPerSec float64 `json:"disk_write_mb_per_sec"`
	NetInMBPerSec     float64 `json:"net_in_mb_per_sec"`
	NetOutMBPerSec    float64 `json:"net_out_mb_per_sec"`
}

// UnmarshalJSON reads a row back ("bench merge"): encoding/json cannot
// fill an embedded pointer to an unexported type.
func (h *jsonHostRow) UnmarshalJSON(data []byte) error {
	var names struct{ Name, Role, URL, Source, Status, Error string }
	if err := json.Unmarshal(data, &names); err != nil {
		return err
	}
	*h = jsonHostRow{Name: names.Name, Role: names.Role, URL: names.URL, Source: names.Source, Status: names.Status, Error: names.Error}
	if h.Status == unreachableCell {
		return nil
	}
	h.jsonHostMeasured = &jsonHostMeasured{}
	return json.Unmarshal(data, h.jsonHostMeasured)
}

func hostsJSON(rows []HostRow) []jsonHostRow {
	out := make([]jsonHostRow, 0, len(rows))
	for _, h := range rows {
		// Redacted again: rows merged from other workers' results or read
		// from a file written by an older version may hold credentials.
		jr := jsonHostRow{Name: h.Name, Role: h.Role, URL: config.RedactURL(h.URL), Source: h.Source, Status: "ok", Error: config.RedactText(h.Err)}
		if h.Unreachable() {
			jr.Status = unreachableCell
		} else {
			jr.jsonHostMeasured = &jsonHostMeasured{CPUPercent: round(h.CPUPercent, 2), CPUPeakPercent: round(h.CPUPeakPercent, 2),
				MemoryPercent: round(h.MemPercent, 2), DiskBusyPercent: round(h.DiskBusyPercent, 2),
				DiskReadMBPerSec: round(h.DiskReadMBps, 3), DiskWriteMBPerSec: round(h.DiskWriteMBps, 3),
				NetInMBPerSec: round(h.NetInMBps, 3), NetOutMBPerSec: round(h.NetOutMBps, 3)}
		}
		out = append(out, jr)
	}
	return out
}
