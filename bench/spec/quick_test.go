package spec

import (
	"reflect"
	"testing"
)

// The quick bench is the bench of the file it stands for, valid or not.
func TestQuickIsItsFile(t *testing.T) {
	for _, q := range []Quick{NewQuick(1000, 100, 3, "all"), NewQuick(50, 1024, 1, "1"), NewQuick(1000, 10, 1, "all"), NewQuick(0, 100, 1, "0")} {
		data, err := q.YAML()
		if err != nil {
			t.Fatal(err)
		}
		want, wantErr := Parse(data)
		got, err := q.Bench()
		if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Errorf("%+v: error %v, the file's %v", q, err, wantErr)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%+v:\n got %+v\nfile %+v", q, got, want)
		}
	}
}
