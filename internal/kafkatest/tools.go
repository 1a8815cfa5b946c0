package kafkatest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// RunClass runs a class of the pinned Kafka jars (a perf or admin tool such
// as org.apache.kafka.tools.ProducerPerformance) through scripts/kafka.sh
// java-class and returns its standard output.
func RunClass(ctx context.Context, class string, args ...string) (string, error) {
	return RunTool(ctx, nil, class, args...)
}

// RunTool is RunClass with extra JVM flags (KAFKA_BENCH_JAVA_OPTS of
// scripts/kafka.sh java-class), such as those of Kafka's perf-test scripts.
func RunTool(ctx context.Context, jvmFlags []string, class string, args ...string) (string, error) {
	root, err := repoRoot(ctx)
	if err != nil {
		return "", err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "bash", append([]string{filepath.Join(root, kafkaScript), "java-class", class}, args...)...)
	if len(jvmFlags) > 0 {
		cmd.Env = append(os.Environ(), "KAFKA_BENCH_JAVA_OPTS="+strings.Join(jvmFlags, " "))
	}
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("kafkatest: %s: %w\n%s", class, err, tailOf(stderr.String(), 2000))
	}
	return stdout.String(), nil
}

func tailOf(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
