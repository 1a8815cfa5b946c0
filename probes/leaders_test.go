package probes

import (
	"reflect"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
)

func TestPlanLeaders(t *testing.T) {
	pd := func(part int32, replicas ...int32) kadm.PartitionDetail {
		return kadm.PartitionDetail{Partition: part, Replicas: replicas}
	}
	cases := []struct {
		name    string
		brokers []int32
		parts   []kadm.PartitionDetail
		want    map[int32][]int32
	}{
		{"already spread", []int32{1, 2, 3}, []kadm.PartitionDetail{pd(0, 1, 2, 3), pd(1, 2, 3, 1), pd(2, 3, 1, 2)}, map[int32][]int32{}},
		{"reorder only", []int32{1, 2, 3}, []kadm.PartitionDetail{pd(0, 1, 2, 3), pd(1, 1, 2, 3), pd(2, 1, 3, 2)},
			map[int32][]int32{1: {2, 1, 3}, 2: {3, 1, 2}}},
		{"rf 1 moves", []int32{1, 2, 3}, []kadm.PartitionDetail{pd(0, 1), pd(1, 1), pd(2, 1)},
			map[int32][]int32{1: {2}, 2: {3}}},
		{"more partitions than brokers", []int32{1, 2}, []kadm.PartitionDetail{pd(0, 2), pd(1, 2), pd(2, 2), pd(3, 2)},
			map[int32][]int32{0: {1}, 2: {1}}},
		{"no replicas known", []int32{1, 2}, []kadm.PartitionDetail{pd(0), pd(1)}, map[int32][]int32{}},
		{"no brokers", nil, []kadm.PartitionDetail{pd(0, 1)}, map[int32][]int32{}},
	}
	for _, c := range cases {
		if got := planLeaders(c.brokers, c.parts); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: planLeaders = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestCovers(t *testing.T) {
	if !covers([]int32{3, 1, 2, 1}, []int32{1, 2, 3}) || covers([]int32{1, 1, 2}, []int32{1, 2, 3}) {
		t.Error("covers is wrong")
	}
}
