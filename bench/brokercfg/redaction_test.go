package brokercfg

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
)

// password is the secret the redaction tests hide; it must appear nowhere.
const password = "hunter2"

// TestNoSecretInRefusal: a broker setting named like a password, refused
// before anything runs, shows no secret.
func TestNoSecretInRefusal(t *testing.T) {
	b, err := spec.Parse([]byte("num_records: 10\ndefaults: {broker.7.ssl.key.password: hunter2}\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := &Changer{brokers: []int32{1}}
	err = c.Check(context.Background(), b)
	var refused *RefusedError
	if !errors.As(err, &refused) || strings.Contains(err.Error(), password) || !strings.Contains(err.Error(), "= <secret>: no broker 7") {
		t.Errorf("refused setting: %v", err)
	}
}
