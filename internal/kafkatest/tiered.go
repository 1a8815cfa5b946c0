package kafkatest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// tieredManager is the remote storage manager of TieredStorage, a Java
// class of java/ compiled for the broker.
const tieredManager = "DelayedRemoteStorageManager"

// TieredStorage is the broker configuration (Options.BrokerConfig) of
// tiered storage (KIP-405) on one machine: a remote storage manager of our
// own (java/DelayedRemoteStorageManager.java, compiled here against the
// broker's lib with javac) keeps the remote tier in a directory under dir
// and sleeps fetchDelay before each fetch of a remote segment, so that
// remote reads are measurably slower. The remote log
// metadata topic has one replica (a one-node cluster) and the remote log
// manager copies rolled segments every second. A topic tiers with
// remote.storage.enable=true; only rolled segments are copied.
func TieredStorage(ctx context.Context, dir string, fetchDelay time.Duration, logf func(string, ...any)) (map[string]string, error) {
	root, err := repoRoot(ctx)
	if err != nil {
		return nil, err
	}
	lib, _, _, err := kafkaLib(ctx, "", logf)
	if err != nil {
		return nil, err
	}
	classes := filepath.Join(dir, "rsm-classes")
	if err := os.MkdirAll(classes, 0o755); err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	javac := exec.CommandContext(ctx, "javac", "-d", classes, "-cp", filepath.Join(lib, "*"),
		filepath.Join(root, "internal/kafkatest/java", tieredManager+".java"))
	javac.Stderr = &stderr
	if err := javac.Run(); err != nil {
		return nil, fmt.Errorf("kafkatest: compiling %s: %w\n%s", tieredManager, err, strings.TrimSpace(stderr.String()))
	}
	remote := filepath.Join(dir, "remote-tier")
	if err := os.MkdirAll(remote, 0o755); err != nil {
		return nil, err
	}
	return map[string]string{
		"remote.log.storage.system.enable":                         "true",
		"remote.log.storage.manager.class.name":                    tieredManager,
		"remote.log.storage.manager.class.path":                    classes,
		"remote.log.metadata.manager.listener.name":                "PLAINTEXT",
		"rlmm.config.remote.log.metadata.topic.replication.factor": "1",
		"rlmm.config.remote.log.metadata.topic.num.partitions":     "1",
		"remote.log.manager.task.interval.ms":                      "1000",
		"log.retention.check.interval.ms":                          "1000",
		"rsm.config.dir":                                           remote,
		"rsm.config.fetch.delay.ms":                                strconv.FormatInt(fetchDelay.Milliseconds(), 10),
		"remote.log.manager.copier.thread.pool.size":               "1",
		"remote.log.manager.expiration.thread.pool.size":           "1",
		"remote.log.reader.threads":                                "2",
		// A remote fetch waits for the delayed manager rather than
		// answering empty after the default 500 ms.
		"remote.fetch.max.wait.ms": "30000",
	}, nil
}
