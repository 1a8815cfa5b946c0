// ChurnE2E: consumer.churn of scripts/bench-rebalance.yml with Kafka's own
// Java clients, the Java half of scripts/bench-rebalance-java.sh (its franz-go
// half is tools/kgo-churn, the same program in Go).
//
// It creates a topic (partitions, RF 3), starts two members of a fresh group
// (group.protocol=consumer, or classic with the cooperative-sticky assignor)
// and waits until they own every partition; then it produces rate records/s
// of size bytes (acks=all, linger.ms=5, round-robin over the partitions,
// CreateTime set by the producer) for warmup + duration seconds. The churn
// starts with the measured duration: a third member joins (interval - churn)
// seconds later, leaves churn seconds after it joined, and so on. Every
// member auto-commits each second, commits on revocation, and takes each
// record's end-to-end latency as now - the record's timestamp; a partition
// that moves is unowned from its old owner's revocation (after the commit)
// to its new owner's assignment callback. After the producer stops it waits
// (at most 30 s) until every acknowledged record was read, then prints one
// JSON line: over the records of the measured duration, the latency's p50,
// p99 and max in ms of each record's first read; the unowned time's median
// and max, the number of moves and every unowned time; records produced, lost (acknowledged,
// never read) and read again (duplicates); and the members' assignment
// changes (listener calls with partitions, every member counting its own).
//
// Compiled and run by scripts/bench-rebalance-java.sh against the jars of
// scripts/kafka.sh lib:
//
//	java -cp <dir>:<lib>/* ChurnE2E <bootstrap> <topic> <classic|consumer> [duration rate size partitions interval churn warmup]
import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.*;

public class ChurnE2E {
    static String bootstrap, topic, protocol;
    static final AtomicInteger changes = new AtomicInteger();
    static final AtomicInteger owned = new AtomicInteger();
    static final AtomicBoolean stopChurn = new AtomicBoolean(), stopAll = new AtomicBoolean();
    static final ConcurrentHashMap<Long, Long> firstRead = new ConcurrentHashMap<>(); // seq -> latency ms
    static final ConcurrentHashMap<Integer, Long> revokedAt = new ConcurrentHashMap<>(); // partition -> ms
    static final List<Long> gaps = Collections.synchronizedList(new ArrayList<>());
    static volatile long warmSeq = Long.MAX_VALUE; // records from this sequence number on are measured
    static final AtomicLong reads = new AtomicLong();

    public static void main(String[] a) throws Exception {
        bootstrap = a[0];
        topic = a[1];
        protocol = a[2];
        int duration = a.length > 3 ? Integer.parseInt(a[3]) : 30;
        int rate = a.length > 4 ? Integer.parseInt(a[4]) : 1000;
        int size = a.length > 5 ? Integer.parseInt(a[5]) : 512;
        int partitions = a.length > 6 ? Integer.parseInt(a[6]) : 6;
        int interval = a.length > 7 ? Integer.parseInt(a[7]) : 10;
        int churn = a.length > 8 ? Integer.parseInt(a[8]) : 5;
        int warmup = a.length > 9 ? Integer.parseInt(a[9]) : 10;
        if (!protocol.equals("classic") && !protocol.equals("consumer"))
            throw new IllegalArgumentException("protocol " + protocol + ": want classic or consumer");
        if (rate < 1 || partitions < 1 || churn <= 0 || churn >= interval)
            throw new IllegalArgumentException("rate " + rate + ", partitions " + partitions + ", interval " + interval +
                ", churn " + churn + ": want rate and partitions at least 1 and 0 < churn < interval");
        String group = topic + "-group";

        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(ap)) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 3))).all().get();
        }

        List<Thread> members = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Thread t = new Thread(() -> member(group, null));
            t.start();
            members.add(t);
        }
        long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (owned.get() != partitions) {
            if (System.nanoTime() > waitUntil)
                throw new IllegalStateException("the two members own " + owned.get() + " of " + partitions + " partitions after 60 s");
            Thread.sleep(50);
        }
        Thread churner = new Thread(() -> {
            try {
                while (!stopChurn.get()) {
                    Thread.sleep((interval - churn) * 1000L);
                    if (stopChurn.get()) return;
                    long leaveAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(churn);
                    member(group, leaveAt);
                }
            } catch (InterruptedException e) {
                return;
            }
        });

        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        pp.put(ProducerConfig.ACKS_CONFIG, "all");
        pp.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, LongSerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        AtomicLong acked = new AtomicLong(), failed = new AtomicLong();
        Set<Long> ackedSeqs = ConcurrentHashMap.newKeySet();
        byte[] value = new byte[size];
        Arrays.fill(value, (byte) 'x');
        long produced = 0;
        try (KafkaProducer<Long, byte[]> producer = new KafkaProducer<>(pp)) {
            long start = System.nanoTime(), measured = start + TimeUnit.SECONDS.toNanos(warmup);
            long end = measured + TimeUnit.SECONDS.toNanos(duration);
            long perTick = Math.max(1, rate / 100); // a wake-up every 10 ms
            long tickNanos = TimeUnit.SECONDS.toNanos(1) * perTick / rate;
            for (long next = start; next < end; next += tickNanos) {
                long sleep = next - System.nanoTime();
                if (sleep > 0) TimeUnit.NANOSECONDS.sleep(sleep);
                if (warmSeq == Long.MAX_VALUE && next >= measured) {
                    // the warm-up's moves (the first joins) are not churn's
                    changes.set(0);
                    gaps.clear();
                    warmSeq = produced;
                    churner.start();
                }
                for (int i = 0; i < perTick; i++) {
                    long seq = produced++;
                    producer.send(new ProducerRecord<>(topic, (int) (seq % partitions), null, seq, value), (md, err) -> {
                        if (err != null) failed.incrementAndGet();
                        else { acked.incrementAndGet(); ackedSeqs.add(seq); }
                    });
                }
            }
            producer.flush();
        }
        stopChurn.set(true);
        long drainUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!firstRead.keySet().containsAll(ackedSeqs) && System.nanoTime() < drainUntil) Thread.sleep(100);
        stopAll.set(true);
        for (Thread t : members) t.join();
        churner.join();

        long lost = ackedSeqs.stream().filter(s -> !firstRead.containsKey(s)).count();
        long[] lat = firstRead.entrySet().stream().filter(e -> e.getKey() >= warmSeq)
            .mapToLong(Map.Entry::getValue).sorted().toArray();
        long[] gap;
        synchronized (gaps) {
            gap = gaps.stream().mapToLong(Long::longValue).sorted().toArray();
        }
        System.out.printf("{\"client\":\"java\",\"protocol\":\"%s\",\"e2e_p50_ms\":%d,\"e2e_p99_ms\":%d,\"e2e_max_ms\":%d," +
                "\"unowned_p50_ms\":%d,\"unowned_max_ms\":%d,\"moves\":%d,\"unowned_ms\":%s," +
                "\"produced\":%d,\"acked\":%d,\"failed\":%d,\"lost\":%d,\"duplicates\":%d,\"assignment_changes\":%d}%n",
            protocol, q(lat, 0.50), q(lat, 0.99), lat.length == 0 ? -1 : lat[lat.length - 1],
            q(gap, 0.50), gap.length == 0 ? -1 : gap[gap.length - 1], gap.length, Arrays.toString(gap).replace(" ", ""),
            produced, acked.get(), failed.get(), lost, reads.get() - firstRead.size(), changes.get());
        System.exit(0);
    }

    // q is the nearest-rank quantile of the sorted xs.
    static long q(long[] xs, double p) {
        if (xs.length == 0) return -1;
        int i = (int) Math.ceil(p * xs.length) - 1;
        return xs[Math.max(0, Math.min(xs.length - 1, i))];
    }

    // member reads the topic in group until stopAll, or until leaveAt
    // (System.nanoTime) for the churn member, then closes (leaves the group).
    static void member(String group, Long leaveAt) {
        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        cp.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        cp.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        if (protocol.equals("classic"))
            cp.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        cp.put(ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG, 1000);
        cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class.getName());
        cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        boolean counted = leaveAt == null;
        try (KafkaConsumer<Long, byte[]> c = new KafkaConsumer<>(cp)) {
            c.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                public void onPartitionsRevoked(Collection<TopicPartition> ps) {
                    if (ps.isEmpty()) return;
                    c.commitSync(); // what was read, before giving partitions up
                    long now = System.currentTimeMillis();
                    for (TopicPartition p : ps) revokedAt.put(p.partition(), now);
                    changes.incrementAndGet();
                    if (counted) owned.addAndGet(-ps.size());
                }

                public void onPartitionsAssigned(Collection<TopicPartition> ps) {
                    if (ps.isEmpty()) return;
                    long now = System.currentTimeMillis();
                    for (TopicPartition p : ps) {
                        Long at = revokedAt.remove(p.partition());
                        if (at != null) gaps.add(now - at);
                    }
                    changes.incrementAndGet();
                    if (counted) owned.addAndGet(ps.size());
                }

                public void onPartitionsLost(Collection<TopicPartition> ps) {
                    changes.incrementAndGet();
                    if (counted) owned.addAndGet(-ps.size());
                }
            });
            while (leaveAt == null ? !stopAll.get() : !stopChurn.get() && System.nanoTime() < leaveAt) {
                for (ConsumerRecord<Long, byte[]> r : c.poll(Duration.ofMillis(100))) {
                    long latency = System.currentTimeMillis() - r.timestamp();
                    reads.incrementAndGet();
                    firstRead.putIfAbsent(r.key(), latency);
                }
            }
        }
    }
}
