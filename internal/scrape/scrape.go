// Package scrape reads a /metrics endpoint the way Prometheus does, for the
// tests that assert on what the exporter really exposes.
package scrape

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Families are one scrape, by metric family name.
type Families map[string]*dto.MetricFamily

// Get scrapes url (text format).
func Get(url string) (Families, error) {
	return get(url, expfmt.NewFormat(expfmt.TypeTextPlain))
}

// GetProto scrapes url in the protobuf format, the one that carries native
// histograms' buckets.
func GetProto(url string) (Families, error) {
	return get(url, expfmt.NewFormat(expfmt.TypeProtoDelim))
}

func get(url string, format expfmt.Format) (Families, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", string(format))
	client := http.Client{Timeout: 5 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	if format.FormatType() != expfmt.TypeProtoDelim {
		return Parse(resp.Body)
	}
	if got := expfmt.ResponseFormat(resp.Header); got.FormatType() != expfmt.TypeProtoDelim {
		return nil, fmt.Errorf("GET %s: answered %q, not the protobuf format asked for", url, got)
	}
	f := Families{}
	dec := expfmt.NewDecoder(resp.Body, expfmt.NewFormat(expfmt.TypeProtoDelim))
	for {
		mf := &dto.MetricFamily{}
		if err := dec.Decode(mf); errors.Is(err, io.EOF) {
			return f, nil
		} else if err != nil {
			return nil, fmt.Errorf("GET %s: %w", url, err)
		}
		f[mf.GetName()] = mf
	}
}

// MustGather reads g as a scrape would find it, by family name; an error
// ends the test.
func MustGather(t testing.TB, g prometheus.Gatherer) Families {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	f := Families{}
	for _, mf := range mfs {
		f[mf.GetName()] = mf
	}
	return f
}

// Parse reads a text exposition.
func Parse(r io.Reader) (Families, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(r)
}

// Find returns the series of family name whose labels include all of
// labels (name, value pairs), or nil.
func (f Families) Find(name string, labels ...string) []*dto.Metric {
	mf, ok := f[name]
	if !ok {
		return nil
	}
	var out []*dto.Metric
	for _, m := range mf.GetMetric() {
		if matches(m, labels) {
			out = append(out, m)
		}
	}
	return out
}

func matches(m *dto.Metric, labels []string) bool {
	for i := 0; i+1 < len(labels); i += 2 {
		found := false
		for _, lp := range m.GetLabel() {
			if lp.GetName() == labels[i] && lp.GetValue() == labels[i+1] {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Value sums the matching series of a counter or gauge, or the sample count
// of a histogram; ok is false when no series matches.
func (f Families) Value(name string, labels ...string) (v float64, ok bool) {
	for _, m := range f.Find(name, labels...) {
		ok = true
		switch {
		case m.Counter != nil:
			v += m.Counter.GetValue()
		case m.Gauge != nil:
			v += m.Gauge.GetValue()
		case m.Histogram != nil:
			v += float64(m.Histogram.GetSampleCount())
		case m.Untyped != nil:
			v += m.Untyped.GetValue()
		}
	}
	return v, ok
}

// Label returns the value of label on the first matching series.
func (f Families) Label(name, label string, match ...string) string {
	for _, m := range f.Find(name, match...) {
		for _, lp := range m.GetLabel() {
			if lp.GetName() == label {
				return lp.GetValue()
			}
		}
	}
	return ""
}

// BucketCount returns the cumulative count of the classic bucket with the
// given upper bound (summed over matching series).
func (f Families) BucketCount(name string, le float64, labels ...string) uint64 {
	var n uint64
	for _, m := range f.Find(name, labels...) {
		for _, b := range m.GetHistogram().GetBucket() {
			if b.GetUpperBound() == le {
				n += b.GetCumulativeCount()
			}
		}
	}
	return n
}

// ObservedLabelValues returns, sorted, the values of label on the histogram
// series of name (matching match) that have at least one observation.
func (f Families) ObservedLabelValues(name, label string, match ...string) []string {
	var out []string
	for _, m := range f.Find(name, match...) {
		if m.GetHistogram().GetSampleCount() == 0 {
			continue
		}
		for _, l := range m.GetLabel() {
			if l.GetName() == label {
				out = append(out, l.GetValue())
			}
		}
	}
	sort.Strings(out)
	return out
}
