package probes

import (
	"reflect"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestPlanLeaders(t *testing.T) {
	pd := func(part int32, replicas ...int32) kadm.PartitionDetail {
		return kadm.PartitionDetail{Partition: part, Replicas: replicas}
	}
	ids := func(ids ...int32) brokerSet { return brokerSet{ids: ids} }
	// racked: brokers 1..6 in racks a, a, b, b, c, c.
	racked := func(ids ...int32) brokerSet {
		bs := brokerSet{ids: ids, racks: map[int32]string{}}
		for _, id := range ids {
			bs.racks[id] = string(rune('a' + (id-1)/2))
		}
		return bs
	}
	// registered: broker 3 removed (1, 2 and 4 registered).
	removed3 := func(bs brokerSet) brokerSet {
		bs.registered = map[int32]bool{1: true, 2: true, 4: true}
		return bs
	}
	cases := []struct {
		name    string
		brokers brokerSet
		parts   []kadm.PartitionDetail
		want    map[int32][]int32
	}{
		{"already spread", ids(1, 2, 3), []kadm.PartitionDetail{pd(0, 1, 2, 3), pd(1, 2, 3, 1), pd(2, 3, 1, 2)}, map[int32][]int32{}},
		{"reorder only", ids(1, 2, 3), []kadm.PartitionDetail{pd(0, 1, 2, 3), pd(1, 1, 2, 3), pd(2, 1, 3, 2)},
			map[int32][]int32{1: {2, 1, 3}, 2: {3, 1, 2}}},
		{"rf 1 moves", ids(1, 2, 3), []kadm.PartitionDetail{pd(0, 1), pd(1, 1), pd(2, 1)},
			map[int32][]int32{1: {2}, 2: {3}}},
		{"more partitions than brokers", ids(1, 2), []kadm.PartitionDetail{pd(0, 2), pd(1, 2), pd(2, 2), pd(3, 2)},
			map[int32][]int32{0: {1}, 2: {1}}},
		{"no replicas known", ids(1, 2), []kadm.PartitionDetail{pd(0), pd(1)}, map[int32][]int32{}},
		{"no brokers", ids(), []kadm.PartitionDetail{pd(0, 1)}, map[int32][]int32{}},
		// Without racks the last replica makes room; with racks the one
		// in the new leader's rack, so the racks stay a, b, c.
		{"no racks: the last replica makes room", ids(1, 2, 3, 4, 5, 6), []kadm.PartitionDetail{pd(0, 1, 3, 5), pd(1, 1, 3, 5)},
			map[int32][]int32{1: {2, 1, 3}}},
		{"racks: the replica in the leader's rack makes room", racked(1, 2, 3, 4, 5, 6), []kadm.PartitionDetail{pd(0, 1, 3, 5), pd(1, 1, 3, 5)},
			map[int32][]int32{1: {2, 3, 5}}},
		{"racks: a replica sharing a rack makes room", racked(1, 2, 3, 4, 5, 6), []kadm.PartitionDetail{pd(0, 1), pd(1, 1), pd(2, 1), pd(3, 1), pd(4, 3, 4, 1)},
			map[int32][]int32{1: {2}, 2: {3}, 3: {4}, 4: {5, 4, 1}}},
		{"removed broker: its replica moves to a rack the partition lacks", removed3(racked(1, 2, 4)),
			[]kadm.PartitionDetail{pd(0, 1, 3), pd(1, 3, 2), pd(2, 4, 3)},
			map[int32][]int32{0: {1, 4}, 1: {2, 4}, 2: {4, 1}}},
		{"removed broker and no broker to take its place", removed3(ids(1, 2)), []kadm.PartitionDetail{pd(0, 1, 2, 3), pd(1, 2, 3, 1)},
			map[int32][]int32{1: {2, 1, 3}}},
		{"a fenced broker is not removed", ids(1, 2), []kadm.PartitionDetail{pd(0, 1, 3), pd(1, 2, 3)}, map[int32][]int32{}},
	}
	for _, c := range cases {
		if got := planLeaders(c.brokers, c.parts); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: planLeaders = %v, want %v", c.name, got, c.want)
		}
	}
}

// A fenced (restarting) broker's replicas keep their rack: brokers 1, 2, 3
// in racks a, b, c serve and 4, in rack a, is fenced. Broker 1 takes the
// place of 4, the replica in its own rack, so the replicas stay in three
// racks, not [1 4 2] in racks a, a, b.
func TestPlanLeadersFencedBrokerRack(t *testing.T) {
	resp := kmsg.NewPtrDescribeClusterResponse()
	resp.Version = 2
	for id, rack := range map[int32]string{1: "a", 2: "b", 3: "c", 4: "a"} {
		b := kmsg.NewDescribeClusterResponseBroker()
		b.NodeID, b.Rack, b.IsFenced = id, new(rack), id == 4
		resp.Brokers = append(resp.Brokers, b)
	}
	bs := brokersOf(resp)
	if want := []int32{1, 2, 3}; !reflect.DeepEqual(bs.ids, want) {
		t.Fatalf("serving brokers %v, want %v", bs.ids, want)
	}
	got := planLeaders(bs, []kadm.PartitionDetail{{Partition: 0, Replicas: []int32{4, 2, 3}}})
	if want := map[int32][]int32{0: {1, 2, 3}}; !reflect.DeepEqual(got, want) {
		t.Errorf("planLeaders = %v, want %v", got, want)
	}
}

func TestCovers(t *testing.T) {
	if !covers([]int32{3, 1, 2, 1}, []int32{1, 2, 3}) || covers([]int32{1, 1, 2}, []int32{1, 2, 3}) {
		t.Error("covers is wrong")
	}
}
