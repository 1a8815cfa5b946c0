package spec

import "testing"

// The group protocol and the classic assignors are matrix dimensions like
// any consumer property, so "eager vs cooperative vs KIP-848" is one file;
// a point that pairs the consumer protocol with a client-side assignor is
// refused as the exporter refuses it.
func TestGroupProtocolMatrix(t *testing.T) {
	b, err := Parse([]byte(`
num_records: 1000
scenarios:
  - name: eager
    consumer: {partition.assignment.strategy: range}
  - name: cooperative
    consumer: {partition.assignment.strategy: cooperative-sticky}
  - name: kip848
    consumer: {group.protocol: consumer}
matrix:
  consumers: [1, 2]
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Scenarios) != 6 {
		t.Fatalf("%d scenarios, want 3 × 2", len(b.Scenarios))
	}
	for _, s := range b.Scenarios {
		c := s.Probe.Consumer
		want := map[string]string{"eager": "classic range", "cooperative": "classic cooperative-sticky", "kip848": "consumer "}[s.Params[0]]
		if got := c.GroupProtocol + " " + c.PartitionAssignmentStrategy; got != want {
			t.Errorf("%s: group.protocol and strategy %q, want %q", s.Name, got, want)
		}
	}
	_, err = Parse([]byte(`
num_records: 1000
defaults:
  consumer: {group.protocol: consumer}
matrix:
  partition.assignment.strategy: [range, sticky]
`))
	if err == nil {
		t.Fatal("the consumer protocol with a client-side assignor was accepted")
	}
	t.Log(err)
}
