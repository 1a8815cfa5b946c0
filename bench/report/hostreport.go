package report

import (
	"fmt"
	"strings"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/redact"
)

// hostColumns are the per-machine columns of the seeds' tables (seed 004:
// CPU, 内存, IO, 入流量, 出流量), IO split into busy % and MB/s.
var hostColumns = []string{"CPU %", "peak CPU %", "mem %", "disk busy %", "disk read (MB/s)", "disk write (MB/s)", "net in (MB/s)", "net out (MB/s)"}

// hostCells are a host's measurements; "unreachable" and blanks when it
// could not be measured.
func hostCells(h result.HostRow) []string {
	if h.Unreachable() {
		out := make([]string, len(hostColumns))
		out[0] = result.UnreachableStatus
		return out
	}
	return []string{f1(h.CPUPercent), f1(h.CPUPeakPercent), f1(h.MemPercent), f1(h.DiskBusyPercent),
		f2(h.DiskReadMBps), f2(h.DiskWriteMBps), f2(h.NetInMBps), f2(h.NetOutMBps)}
}

// hostAddress is the seeds' ip column: the endpoint's host, or "local" for
// the bench's own machine. It is cut from the text: a redacted URL
// (u:<secret>@) no longer parses.
func hostAddress(h result.HostRow) string {
	if h.URL == "" {
		return "local"
	}
	shown := redact.URL(h.URL) // a row read back may not be redacted yet
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
func writeHostsMarkdown(b *strings.Builder, paramKeys []string, results []result.Result) {
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
				errs = append(errs, fmt.Sprintf("%s %s (%s, scenario %s): %s", result.UnreachableStatus, host.Name, redact.URL(host.URL), r.Name(), redact.Text(host.Err)))
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

func hasHosts(results []result.Result) bool {
	for _, r := range results {
		if len(r.Hosts) > 0 {
			return true
		}
	}
	return false
}

// hostNames are the machines of the sweep, in row order (every scenario
// measures the same ones).
func hostNames(results []result.Result) []string {
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
func csvHostCells(names []string, r result.Result) []string {
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
