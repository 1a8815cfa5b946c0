package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

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

// shareConsumerRate reads ShareConsumerPerformance's nMsg.sec, under its
// header "start.time, end.time, data.consumed.in.MB, MB.sec, nMsg.sec,
// data.consumed.in.nMsg, fetch.time.ms". It has no rebalance time: its
// rate includes the share group's start (the members' first heartbeat to
// their assignment, about group.share.heartbeat.interval.ms, 5 s by
// default), as ours (records_per_sec) does.
func shareConsumerRate(out string) (float64, error) {
	v, err := perfFields(out, "ShareConsumerPerformance", "nMsg.sec")
	if err != nil {
		return 0, err
	}
	return v[0], nil
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

// floorShareRateRE is kgo-floor share's line, "consumed N in D, R records/s".
var floorShareRateRE = regexp.MustCompile(`(?m)^consumed \d+ in \S+, ([0-9.]+) records/s$`)

// floorShareRate reads kgo-floor share's records/s.
func floorShareRate(out string) (float64, error) {
	m := floorShareRateRE.FindStringSubmatch(out)
	if m == nil {
		return 0, errors.New("no kgo-floor share result line (\"consumed N in D, R records/s\") in the output")
	}
	return strconv.ParseFloat(m[1], 64)
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
