package kafkatest

import (
	"context"
	"strings"
	"testing"
)

// Options.KafkaVersion reaches scripts/kafka.sh, which names a malformed
// version in its error before resolving anything (no download here).
func TestKafkaVersionReachesScript(t *testing.T) {
	_, _, _, err := kafkaLib(context.Background(), "4.1", t.Logf)
	if err == nil || !strings.Contains(err.Error(), `KAFKA_VERSION = "4.1"`) {
		t.Fatalf("kafkaLib with version 4.1: %v, want the script's error naming KAFKA_VERSION = \"4.1\"", err)
	}
}
