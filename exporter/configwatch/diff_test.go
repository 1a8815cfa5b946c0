package configwatch

import (
	"maps"
	"reflect"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"
)

const (
	def     = kmsg.ConfigSourceDefaultConfig
	static  = kmsg.ConfigSourceStaticBrokerConfig
	dynamic = kmsg.ConfigSourceDynamicBrokerConfig
	topic   = kmsg.ConfigSourceDynamicTopicConfig
)

func entry(v string, src kmsg.ConfigSource) Entry { return Entry{Value: v, Source: src} }

func TestHashCoversOnlyTrackedKeys(t *testing.T) {
	base := Configs{
		"num.io.threads":       entry("8", def),
		"log.dirs":             entry("/data", static),
		"num.replica.fetchers": entry("1", def),
	}
	h := base.Hash(KindBroker)
	if len(h) != 16 {
		t.Fatalf("hash %q: want 16 hex digits", h)
	}

	// A default value moving (a Kafka upgrade) is not a configuration change.
	moved := clone(base)
	moved["num.io.threads"] = entry("16", def)
	if got := moved.Hash(KindBroker); got != h {
		t.Errorf("changing a default changed the hash: %s -> %s", h, got)
	}
	// Setting a key does change it, even to its default value.
	set := clone(base)
	set["num.replica.fetchers"] = entry("1", dynamic)
	if got := set.Hash(KindBroker); got == h {
		t.Error("setting num.replica.fetchers dynamically left the hash unchanged")
	}
	changed := clone(base)
	changed["log.dirs"] = entry("/data2", static)
	if got := changed.Hash(KindBroker); got == h {
		t.Error("changing a static setting left the hash unchanged")
	}
	// Null and empty are different values.
	null, empty := Configs{"k": {Null: true, Source: dynamic}}, Configs{"k": entry("", dynamic)}
	if null.Hash(KindBroker) == empty.Hash(KindBroker) {
		t.Error("null and empty values hash alike")
	}
	// A key/value boundary cannot be shifted to fake equality.
	a, b := Configs{"a": entry("b=c", dynamic)}, Configs{"a=b": entry("c", dynamic)}
	if a.Hash(KindBroker) == b.Hash(KindBroker) {
		t.Error("a=b=c hashes alike for different splits")
	}
}

func TestTopicTracksOnlyTopicLevelKeys(t *testing.T) {
	c := Configs{
		"retention.ms":        entry("604800000", def),
		"min.insync.replicas": entry("2", static), // inherited from the broker that answered
	}
	h := c.Hash(KindTopic)
	inherited := clone(c)
	inherited["min.insync.replicas"] = entry("1", dynamic)
	if got := inherited.Hash(KindTopic); got != h {
		t.Errorf("an inherited broker value changed the topic hash: %s -> %s", h, got)
	}
	set := clone(c)
	set["retention.ms"] = entry("3600000", topic)
	if got := set.Hash(KindTopic); got == h {
		t.Error("setting retention.ms on the topic left the hash unchanged")
	}
	if got := Diff(KindTopic, c, inherited); len(got) != 0 {
		t.Errorf("Diff over inherited values = %+v, want none", got)
	}
}

func TestDiff(t *testing.T) {
	old := Configs{
		"log.cleaner.threads":  entry("1", def),
		"num.replica.fetchers": entry("2", dynamic),
		"log.dirs":             entry("/a", static),
		"gone":                 entry("x", dynamic),
		"same":                 entry("s", dynamic),
	}
	cur := Configs{
		"log.cleaner.threads":  entry("2", dynamic), // set
		"num.replica.fetchers": entry("1", def),     // back to its default
		"log.dirs":             entry("/b", static), // changed
		"same":                 entry("s", dynamic),
		"new.null":             {Null: true, Source: dynamic},
	}
	want := []KeyChange{
		{Key: "gone", Old: "x", New: "", OldSource: "DYNAMIC_BROKER_CONFIG"},
		{Key: "log.cleaner.threads", Old: "1", New: "2", OldSource: "DEFAULT_CONFIG", NewSource: "DYNAMIC_BROKER_CONFIG"},
		{Key: "log.dirs", Old: "/a", New: "/b", OldSource: "STATIC_BROKER_CONFIG", NewSource: "STATIC_BROKER_CONFIG"},
		{Key: "new.null", Old: "", New: "null", NewSource: "DYNAMIC_BROKER_CONFIG"},
		{Key: "num.replica.fetchers", Old: "2", New: "1", OldSource: "DYNAMIC_BROKER_CONFIG", NewSource: "DEFAULT_CONFIG"},
	}
	if got := Diff(KindBroker, old, cur); !reflect.DeepEqual(got, want) {
		t.Errorf("Diff:\n got %+v\nwant %+v", got, want)
	}
	if got := Diff(KindBroker, cur, cur); len(got) != 0 {
		t.Errorf("Diff of equal configs = %+v", got)
	}
	if (old.Hash(KindBroker) == cur.Hash(KindBroker)) != (len(Diff(KindBroker, old, cur)) == 0) {
		t.Error("hash and Diff disagree")
	}
}

// A broker that sends a sensitive value anyway (Kafka sends none): the value
// is dropped on the way in, so no hash, diff or display can carry it.
func TestSensitiveValuesAreDropped(t *testing.T) {
	secret := "hunter2-secret"
	other := "other-secret"
	describe := func(v string) Configs {
		return fromDescribe(kadm.ResourceConfig{Name: "1", Configs: []kadm.Config{
			{Key: "ssl.key.password", Value: &v, Sensitive: true, Source: dynamic},
			{Key: "num.io.threads", Value: new("8"), Source: def},
			{Key: "log.flush.interval.ms", Value: nil, Source: def},
		}})
	}
	a, b := describe(secret), describe(other)
	if e := a["ssl.key.password"]; e.Value != "" || !e.Sensitive {
		t.Fatalf("sensitive entry kept %+v", e)
	}
	if !a["log.flush.interval.ms"].Null {
		t.Error("nil value not marked null")
	}
	if a.Hash(KindBroker) != b.Hash(KindBroker) {
		t.Error("the hash depends on a sensitive value")
	}
	// Setting a sensitive key is a change, reported without values.
	unset := clone(a)
	delete(unset, "ssl.key.password")
	got := Diff(KindBroker, unset, a)
	want := []KeyChange{{Key: "ssl.key.password", NewSource: "DYNAMIC_BROKER_CONFIG", Sensitive: true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Diff = %+v, want %+v", got, want)
	}
	// A key Kafka starts to mark sensitive hides its old value as well.
	plain := clone(unset)
	plain["ssl.key.password"] = entry("visible-before", dynamic)
	if got := Diff(KindBroker, plain, a); len(got) != 1 || got[0].Old != "" || got[0].New != "" || !got[0].Sensitive {
		t.Errorf("Diff from a plain to a sensitive value = %+v, want no values", got)
	}
}

func clone(c Configs) Configs {
	out := Configs{}
	maps.Copy(out, c)
	return out
}
