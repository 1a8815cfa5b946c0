// DelayedRemoteStorageManager is a remote storage manager for tests of tiered
// storage (KIP-405) on one machine: the remote tier is a local directory
// (rsm.config.dir), one subdirectory per remote segment holding the segment
// and its indexes, and each fetch of a remote segment first sleeps
// rsm.config.fetch.delay.ms, so that a read served from the remote tier is
// measurably slower than one served from the local log.
//
// Kafka's own LocalTieredStorage (kafka-storage's test jar, up to 4.3.x) does
// not load in a 4.4 broker: it needs org.apache.kafka.common.utils.LogContext,
// which 4.4's clients no longer have. internal/kafkatest (tiered.go) compiles
// this class against the broker's lib and puts it on
// remote.log.storage.manager.class.path.

import java.io.IOException;
import java.io.InputStream;
import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteResourceNotFoundException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager;

public class DelayedRemoteStorageManager implements RemoteStorageManager {
    public static final String DIR_CONFIG = "dir";
    public static final String FETCH_DELAY_MS_CONFIG = "fetch.delay.ms";

    private Path root;
    private long delayMs;

    @Override
    public void configure(Map<String, ?> configs) {
        Object dir = configs.get(DIR_CONFIG);
        if (dir == null) {
            throw new IllegalArgumentException("rsm.config." + DIR_CONFIG + " is required");
        }
        root = Paths.get(dir.toString());
        Object delay = configs.get(FETCH_DELAY_MS_CONFIG);
        delayMs = delay == null ? 0 : Long.parseLong(delay.toString());
    }

    private Path segmentDir(RemoteLogSegmentMetadata metadata) {
        return root.resolve(metadata.remoteLogSegmentId().topicIdPartition().toString())
                .resolve(metadata.remoteLogSegmentId().id().toString());
    }

    private static String indexFile(IndexType type) {
        return "index." + type.name().toLowerCase();
    }

    @Override
    public Optional<RemoteLogSegmentMetadata.CustomMetadata> copyLogSegmentData(RemoteLogSegmentMetadata metadata,
            LogSegmentData data) throws RemoteStorageException {
        Path dir = segmentDir(metadata);
        try {
            Files.createDirectories(dir);
            Files.copy(data.logSegment(), dir.resolve("segment"), StandardCopyOption.REPLACE_EXISTING);
            Files.copy(data.offsetIndex(), dir.resolve(indexFile(IndexType.OFFSET)), StandardCopyOption.REPLACE_EXISTING);
            Files.copy(data.timeIndex(), dir.resolve(indexFile(IndexType.TIMESTAMP)), StandardCopyOption.REPLACE_EXISTING);
            Files.copy(data.producerSnapshotIndex(), dir.resolve(indexFile(IndexType.PRODUCER_SNAPSHOT)), StandardCopyOption.REPLACE_EXISTING);
            if (data.transactionIndex().isPresent()) {
                Files.copy(data.transactionIndex().get(), dir.resolve(indexFile(IndexType.TRANSACTION)), StandardCopyOption.REPLACE_EXISTING);
            }
            ByteBuffer epochs = data.leaderEpochIndex().duplicate();
            byte[] bytes = new byte[epochs.remaining()];
            epochs.get(bytes);
            Files.write(dir.resolve(indexFile(IndexType.LEADER_EPOCH)), bytes);
        } catch (IOException e) {
            throw new RemoteStorageException("copying segment " + metadata.remoteLogSegmentId(), e);
        }
        return Optional.empty();
    }

    private void delay() throws RemoteStorageException {
        if (delayMs <= 0) {
            return;
        }
        try {
            Thread.sleep(delayMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RemoteStorageException("interrupted while delaying a remote fetch", e);
        }
    }

    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata metadata, int startPosition)
            throws RemoteStorageException {
        return fetchLogSegment(metadata, startPosition, Integer.MAX_VALUE);
    }

    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata metadata, int startPosition, int endPosition)
            throws RemoteStorageException {
        delay();
        Path file = segmentDir(metadata).resolve("segment");
        try {
            FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
            long end = Math.min(ch.size(), endPosition == Integer.MAX_VALUE ? Long.MAX_VALUE : (long) endPosition + 1);
            ByteBuffer buf = ByteBuffer.allocate((int) Math.max(0, end - startPosition));
            ch.read(buf, startPosition);
            ch.close();
            buf.flip();
            byte[] bytes = new byte[buf.remaining()];
            buf.get(bytes);
            return new ByteArrayInputStream(bytes);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new RemoteResourceNotFoundException("no segment " + metadata.remoteLogSegmentId(), e);
        } catch (IOException e) {
            throw new RemoteStorageException("reading segment " + metadata.remoteLogSegmentId(), e);
        }
    }

    @Override
    public InputStream fetchIndex(RemoteLogSegmentMetadata metadata, IndexType indexType)
            throws RemoteStorageException {
        Path file = segmentDir(metadata).resolve(indexFile(indexType));
        try {
            return Files.newInputStream(file);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new RemoteResourceNotFoundException("no " + indexType + " index of " + metadata.remoteLogSegmentId(), e);
        } catch (IOException e) {
            throw new RemoteStorageException("reading the " + indexType + " index of " + metadata.remoteLogSegmentId(), e);
        }
    }

    @Override
    public void deleteLogSegmentData(RemoteLogSegmentMetadata metadata) throws RemoteStorageException {
        Path dir = segmentDir(metadata);
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new RemoteStorageException("deleting segment " + metadata.remoteLogSegmentId(), e);
        }
    }

    @Override
    public void close() {
    }
}
