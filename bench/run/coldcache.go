package run

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/probes/pacer"
)

// Page cache states of a consume-only read (result.ConsumeResult.PageCache).
const (
	pageCacheCold = "cold"
	pageCacheWarm = "warm only: "
)

// beforeRead readies a consume-only read: it waits for read_delay, then,
// with cold, drops the topic's page cache and says how that went (the
// result's PageCache; "" when not asked).
func (r *Runner) beforeRead(ctx context.Context, adm *kadm.Client, b *spec.Bench, p config.Probe, logger *slog.Logger) (string, error) {
	if !b.ConsumeOnly {
		return "", nil
	}
	if err := waitReadDelay(ctx, adm, p.Topic, b.ReadDelay); err != nil {
		return "", err
	}
	if !b.Cold {
		return "", nil
	}
	state := DropPageCache(ctx, adm, p.Topic, false)
	logger.Info("page cache before the read", "topic", p.Topic, "page_cache", state)
	return state, nil
}

// waitReadDelay waits until the newest record of topic is at least delay
// old (its timestamp, ListOffsets for the max timestamp), so that a
// consume-only read reads a backlog rather than records just written.
func waitReadDelay(ctx context.Context, adm *kadm.Client, topic string, delay time.Duration) error {
	if delay <= 0 {
		return nil
	}
	listed, err := adm.ListMaxTimestampOffsets(ctx, topic)
	if err != nil {
		return fmt.Errorf("read_delay: listing the newest record of %q: %w", topic, err)
	}
	var newest int64 = -1
	listed.Each(func(o kadm.ListedOffset) {
		if o.Err == nil && o.Timestamp > newest {
			newest = o.Timestamp
		}
	})
	if newest < 0 {
		return nil // an empty topic: nothing to wait for
	}
	return pacer.Sleep(ctx, time.Until(time.UnixMilli(newest).Add(delay)))
}

// DropPageCache evicts the page cache of the segment files of topic
// (fsync, then posix_fadvise POSIX_FADV_DONTNEED, which needs no root, on
// each file of each partition's directory) where the brokers' log
// directories are on this machine, and says so: "cold", or "warm only: "
// and why not. Pages a broker has mapped stay: the indexes. With
// keepActive the newest segment of each partition (the one written to, and
// read by a consumer at the tail) keeps its pages.
func DropPageCache(ctx context.Context, adm *kadm.Client, topic string, keepActive bool) string {
	dirs, err := adm.DescribeAllLogDirs(ctx, nil) // every topic: a set of a topic alone needs its partitions
	if err != nil {
		return pageCacheWarm + "describing the brokers' log directories: " + err.Error()
	}
	var partDirs []string
	var missing error
	dirs.Each(func(d kadm.DescribedLogDir) {
		d.Topics.Each(func(p kadm.DescribedLogDirPartition) {
			if p.Topic != topic {
				return
			}
			dir := filepath.Join(d.Dir, topic+"-"+strconv.Itoa(int(p.Partition)))
			if _, err := os.Stat(dir); err != nil {
				missing = cmpErr(missing, fmt.Errorf("broker %d's %s is not on this machine", d.Broker, dir))
				return
			}
			partDirs = append(partDirs, dir)
		})
	})
	switch {
	case missing != nil:
		return pageCacheWarm + missing.Error()
	case len(partDirs) == 0:
		return pageCacheWarm + "the brokers list no log directory of " + topic
	}
	for _, dir := range partDirs {
		if err := evictDir(dir, keepActive); err != nil {
			return pageCacheWarm + err.Error()
		}
	}
	return pageCacheCold
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// evictDir drops the page cache of every regular file in dir; with
// keepActive, not of the newest segment's log file (the largest base
// offset: the names are zero-padded, so the last in order).
func evictDir(dir string, keepActive bool) error {
	entries, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return err
	}
	active := ""
	if keepActive {
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".log") {
				active = e.Name()
			}
		}
	}
	var errs []error
	for _, e := range entries {
		if !e.Type().IsRegular() || e.Name() == active {
			continue
		}
		errs = append(errs, evictFile(filepath.Join(dir, e.Name())))
	}
	return errors.Join(errs...)
}
