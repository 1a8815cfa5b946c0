package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
)

// producerRate reads ProducerPerformance's final line, "N records sent, R
// records/sec (M MB/sec), ... 99.9th.": R.
func producerRate(out string) (float64, error) {
	var rate float64
	found := false
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) < 5 || f[1] != "records" || f[2] != "sent," || f[4] != "records/sec" || !strings.HasSuffix(line, "99.9th.") {
			continue // the progress lines every 5 s end in "max latency."
		}
		v, err := strconv.ParseFloat(f[3], 64)
		if err != nil {
			return 0, fmt.Errorf("ProducerPerformance's line %q: records/sec %q is not a number", line, f[3])
		}
		rate, found = v, true
	}
	if !found {
		return 0, errors.New("no ProducerPerformance result line (\"N records sent, R records/sec ... 99.9th.\") in the output")
	}
	return rate, nil
}

// consumerRates are ConsumerPerformance's rates: nMsg.sec over the whole run
// (group join included) and fetch.nMsg.sec (after the join).
type consumerRates struct {
	total, fetch float64
}

// consumerRate reads ConsumerPerformance's result line, the one after its
// header "start.time, end.time, data.consumed.in.MB, MB.sec,
// data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms,
// fetch.MB.sec, fetch.nMsg.sec".
func consumerRate(out string) (consumerRates, error) {
	v, err := perfFields(out, "ConsumerPerformance", "nMsg.sec", "fetch.nMsg.sec")
	if err != nil {
		return consumerRates{}, err
	}
	return consumerRates{total: v[0], fetch: v[1]}, nil
}

// shareProgressRE is a ShareConsumerPerformance progress line, "start, end,
// MB, MB/s, records/s, records, ms for share consumer N". The members'
// threads print a line in two calls (its text, then its line break), so two
// members' lines can share one line of the output: they are found anywhere.
var shareProgressRE = regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}, (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}), [0-9.]+, [0-9.]+, [0-9.]+, \d+, \d+ for share consumer `)

// shareConsumerRates reads ShareConsumerPerformance's rates when it ran with
// --show-detailed-stats: nMsg.sec of its result line, under its header
// "start.time, end.time, data.consumed.in.MB, MB.sec, nMsg.sec,
// data.consumed.in.nMsg, fetch.time.ms", which includes the share group's
// start (the members' first heartbeat to their assignment, about
// group.share.heartbeat.interval.ms, 5 s by default), as ours'
// records_per_sec does; and its records over the time from its first record
// to end.time, the group's start left out, as ours' fetch.nMsg.sec. The tool
// prints no time to the first record; each member's first progress line
// comes at its first record once the reporting interval has passed since
// the member started (1 s is below the group's start), and its end time is
// that record's: the earliest is the group's first record.
func shareConsumerRates(out string) (consumerRates, error) {
	// The tool's default --date-format, yyyy-MM-dd HH:mm:ss:SSS: Go
	// reads fractional seconds only after a dot, so the last colon is
	// read as one.
	const layout = "2006-01-02 15:04:05.000"
	parse := func(v string) (time.Time, error) {
		if i := strings.LastIndexByte(v, ':'); i > 0 {
			v = v[:i] + "." + v[i+1:]
		}
		return time.Parse(layout, v)
	}
	var first time.Time
	for _, m := range shareProgressRE.FindAllStringSubmatch(out, -1) {
		t, err := parse(m[1])
		if err != nil {
			return consumerRates{}, fmt.Errorf("ShareConsumerPerformance's progress line %q: end time %q: %w", m[0], m[1], err)
		}
		if first.IsZero() || t.Before(first) {
			first = t
		}
	}
	lines := strings.Split(out, "\n")
	h := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "start.time") })
	if h < 0 {
		return consumerRates{}, errors.New("no ShareConsumerPerformance header (\"start.time, end.time, ...\") in the output")
	}
	var end time.Time
	var total, records float64
	final := ""
	for _, l := range lines[h+1:] {
		f := strings.Split(strings.TrimSpace(l), ", ")
		if len(f) != 7 || strings.Contains(l, " for share consumer ") {
			continue
		}
		t, err := parse(f[1])
		if err != nil {
			return consumerRates{}, fmt.Errorf("ShareConsumerPerformance's line %q: end time %q: %w", l, f[1], err)
		}
		if total, err = strconv.ParseFloat(f[4], 64); err != nil {
			return consumerRates{}, fmt.Errorf("ShareConsumerPerformance's line %q: nMsg.sec %q is not a number", l, f[4])
		}
		if records, err = strconv.ParseFloat(f[5], 64); err != nil {
			return consumerRates{}, fmt.Errorf("ShareConsumerPerformance's line %q: data.consumed.in.nMsg %q is not a number", l, f[5])
		}
		end, final = t, l
	}
	switch {
	case final == "":
		return consumerRates{}, errors.New("no ShareConsumerPerformance result line under its header in the output")
	case first.IsZero():
		return consumerRates{}, errors.New("no ShareConsumerPerformance progress line (\"... for share consumer N\") in the output: run it with --show-detailed-stats")
	case !end.After(first):
		return consumerRates{}, fmt.Errorf("ShareConsumerPerformance's first record at %s is not before its end %s", first.Format(layout), end.Format(layout))
	}
	return consumerRates{total: total, fetch: records / end.Sub(first).Seconds()}, nil
}

// perfFields reads the named columns of a consumer perf tool's result
// line, the one after its "start.time, ..." header.
func perfFields(out, tool string, names ...string) ([]float64, error) {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "start.time") || i+1 >= len(lines) {
			continue
		}
		header, values := strings.Split(l, ", "), strings.Split(strings.TrimSpace(lines[i+1]), ", ")
		if len(values) != len(header) {
			return nil, fmt.Errorf("%s's line %q: %d fields under a header of %d", tool, lines[i+1], len(values), len(header))
		}
		var got []float64
	names:
		for _, name := range names {
			for j, h := range header {
				if strings.TrimSpace(h) == name {
					v, err := strconv.ParseFloat(strings.TrimSpace(values[j]), 64)
					if err != nil {
						return nil, fmt.Errorf("%s's line %q: %s %q is not a number", tool, lines[i+1], name, values[j])
					}
					got = append(got, v)
					continue names
				}
			}
			return nil, fmt.Errorf("%s's header %q has no %s", tool, l, name)
		}
		return got, nil
	}
	return nil, fmt.Errorf("no %s header (\"start.time, end.time, ...\") in the output", tool)
}

// readResults reads the results of `bench --format json --output FILE`; it
// fails when there is not exactly one result or the scenario failed.
func readResult(path string) (result.JSONResult, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return result.JSONResult{}, err
	}
	return parseResult(b)
}

func parseResult(b []byte) (result.JSONResult, error) {
	var rs []result.JSONResult
	if err := json.Unmarshal(b, &rs); err != nil {
		return result.JSONResult{}, fmt.Errorf("bench's JSON result: %w", err)
	}
	if len(rs) != 1 {
		return result.JSONResult{}, fmt.Errorf("bench's JSON result has %d scenarios, want 1", len(rs))
	}
	r := rs[0]
	if r.Status != "ok" {
		return r, fmt.Errorf("bench's scenario %q: %s: %s", r.Scenario, r.Status, r.Error)
	}
	return r, nil
}

// ourConsumerRates are ours in ConsumerPerformance's terms: records over
// start to end (nMsg.sec), and over start to end less the group join and
// first fetch (fetch.nMsg.sec).
func ourConsumerRates(r result.JSONResult) (consumerRates, error) {
	c := r.Consume
	if c == nil || c.Records == 0 {
		return consumerRates{}, fmt.Errorf("bench's scenario %q read no records", r.Scenario)
	}
	fetch := c.End.Sub(c.Start).Seconds() - float64(c.RebalanceMS)/1000
	if fetch <= 0 {
		return consumerRates{}, fmt.Errorf("bench's scenario %q: no time left after the group join (%d ms of %.3f s)", r.Scenario, c.RebalanceMS, c.Seconds)
	}
	return consumerRates{total: c.RecordsPerSec, fetch: float64(c.Records) / fetch}, nil
}

// floorShareRateRE is kgo-floor share's two lines, "consumed N in D, R
// records/s" (the group's start included) and "from the first record D, R
// records/s".
var floorShareRateRE = regexp.MustCompile(`(?m)^consumed \d+ in \S+, ([0-9.]+) records/s\nfrom the first record \S+, ([0-9.]+) records/s$`)

// floorShareRates reads kgo-floor share's records/s, with and without the
// group's start.
func floorShareRates(out string) (consumerRates, error) {
	m := floorShareRateRE.FindStringSubmatch(out)
	if m == nil {
		return consumerRates{}, errors.New("no kgo-floor share result lines (\"consumed N in D, R records/s\", \"from the first record D, R records/s\") in the output")
	}
	total, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return consumerRates{}, err
	}
	fetch, err := strconv.ParseFloat(m[2], 64)
	return consumerRates{total: total, fetch: fetch}, err
}

// floorProduceRateRE is kgo-floor produce's line, "acked N failed M in D, R
// records/s".
var floorProduceRateRE = regexp.MustCompile(`(?m)^acked \d+ failed (\d+) in \S+, ([0-9.]+) records/s$`)

// floorProduceRate reads kgo-floor produce's records/s; a failed record is
// an error, as it would be for ours.
func floorProduceRate(out string) (float64, error) {
	m := floorProduceRateRE.FindStringSubmatch(out)
	switch {
	case m == nil:
		return 0, errors.New("no kgo-floor produce result line (\"acked N failed M in D, R records/s\") in the output")
	case m[1] != "0":
		return 0, fmt.Errorf("kgo-floor produce: %s records failed", m[1])
	}
	return strconv.ParseFloat(m[2], 64)
}
