package io.durablejournal.kafka;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * A real Kafka 4.0 cluster on 127.0.0.1 for fault tests: a KRaft controller and three brokers,
 * each a child JVM with a small heap (the recipe of {@link KafkaBroker}, which is one combined
 * node). The controller runs on its own, so stopping brokers never costs the metadata quorum: the
 * leader's ISR shrinks and leaders move as on a production cluster.
 *
 * <p>Brokers are stopped with SIGKILL (a machine lost) or SIGTERM, and started again on the same
 * log directory and ports. Readiness is the cluster's own answer (brokers registered, replicas in
 * sync), polled through the Admin API, never a fixed wait.
 */
final class KafkaCluster implements AutoCloseable {
    private static final String CLUSTER_ID = "t2Qq-7_FSia_zwGINzRvyQ";
    private static final long READY_TIMEOUT_SECONDS = 120;
    /** Controller node id; brokers are 1..n. */
    private static final int CONTROLLER = 0;
    /** Small heaps and C1 only: four JVMs on a loaded 2-core machine start fast and stay small. */
    private static final List<String> JVM_FLAGS = List.of("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k");

    private final Path dir;
    private final int controllerPort;
    private final Map<Integer, Integer> brokerPorts = new HashMap<>();
    private final Map<Integer, Process> processes = new HashMap<>();

    private KafkaCluster(Path dir, int brokers) throws IOException {
        this.dir = dir;
        this.controllerPort = KafkaBroker.freePort();
        for (int id = 1; id <= brokers; id++) {
            brokerPorts.put(id, KafkaBroker.freePort());
        }
    }

    /** Formats and starts a controller and {@code brokers} brokers; waits until every broker is registered. */
    static KafkaCluster start(int brokers) throws Exception {
        KafkaCluster cluster = new KafkaCluster(Files.createTempDirectory("durable-journal-kafka-cluster"), brokers);
        try {
            cluster.formatAll();
            cluster.startNode(CONTROLLER);
            for (int id : cluster.brokerPorts.keySet()) {
                cluster.startNode(id);
            }
            cluster.awaitBrokers(cluster.brokerPorts.keySet());
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    String bootstrapServers() {
        return brokerPorts.values().stream().map(port -> "127.0.0.1:" + port).collect(Collectors.joining(","));
    }

    List<Integer> brokers() {
        return new ArrayList<>(brokerPorts.keySet());
    }

    KafkaStoreConfig config(String topic) {
        return KafkaStoreConfig.of(bootstrapServers(), topic);
    }

    Admin admin() {
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrapServers());
        props.put("default.api.timeout.ms", "30000");
        props.put("request.timeout.ms", "5000");
        return Admin.create(props);
    }

    /** Creates a compacted topic of {@code partitions} partitions, {@code replicas} replicas each, and waits until it is in sync. */
    String createTopic(String name, int partitions, int replicas, Map<String, String> settings) throws Exception {
        Map<String, String> configs = new HashMap<>();
        configs.put("cleanup.policy", "compact");
        configs.putAll(settings);
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) replicas).configs(configs))).all()
                    .get(60, TimeUnit.SECONDS);
        }
        awaitPartition(name, 0, p -> p.isr().size() == replicas, "all " + replicas + " replicas in sync");
        return name;
    }

    /** The broker leading {@code partition} of {@code topic}. */
    int leaderOf(String topic, int partition) throws Exception {
        return awaitPartition(topic, partition, p -> p.leader() != null, "a leader").leader().id();
    }

    /** The brokers holding a replica of {@code partition} besides its leader. */
    List<Integer> followersOf(String topic, int partition) throws Exception {
        TopicPartitionInfo info = awaitPartition(topic, partition, p -> p.leader() != null, "a leader");
        return info.replicas().stream().map(Node::id).filter(id -> id != info.leader().id()).collect(Collectors.toList());
    }

    /**
     * Polls the partition's metadata until {@code condition} holds (the cluster's own state: a
     * leader elected, the ISR shrunk or grown back), failing after {@link #READY_TIMEOUT_SECONDS}.
     */
    TopicPartitionInfo awaitPartition(String topic, int partition, Predicate<TopicPartitionInfo> condition, String what)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(READY_TIMEOUT_SECONDS);
        TopicPartitionInfo last = null;
        try (Admin admin = admin()) {
            while (true) {
                try {
                    TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames()
                            .get(10, TimeUnit.SECONDS).get(topic);
                    last = description.partitions().get(partition);
                    if (condition.test(last)) {
                        return last;
                    }
                } catch (ExecutionException | TimeoutException notYet) {
                    if (notYet.getCause() != null && !(notYet.getCause() instanceof UnknownTopicOrPartitionException)
                            && !(notYet.getCause() instanceof org.apache.kafka.common.errors.RetriableException)) {
                        throw notYet;
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(topic + "-" + partition + " did not reach " + what + " within "
                            + READY_TIMEOUT_SECONDS + " s; last seen: " + last);
                }
                // Metadata propagates in heartbeats (500 ms here); ask again shortly.
                Thread.sleep(100);
            }
        }
    }

    /** Kills broker {@code id} at once (SIGKILL), as a machine failure would. */
    synchronized void kill(int id) throws InterruptedException {
        Process process = processes.remove(id);
        if (process != null) {
            process.destroyForcibly().waitFor();
        }
    }

    /** Stops broker {@code id} cleanly (SIGTERM). */
    synchronized void stop(int id) throws InterruptedException {
        Process process = processes.remove(id);
        if (process != null) {
            process.destroy();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        }
    }

    /** Starts broker {@code id} again on its log directory and port, and waits until it is registered. */
    void restart(int id) throws Exception {
        startNode(id);
        awaitBrokers(List.of(id));
    }

    /** SIGKILLs every process, the controller included: the whole cluster lost at once. */
    synchronized void killAll() throws InterruptedException {
        for (int id : new ArrayList<>(processes.keySet())) {
            kill(id);
        }
    }

    /** Starts the controller and every broker again, and waits until all are registered. */
    void restartAll() throws Exception {
        startNode(CONTROLLER);
        for (int id : brokerPorts.keySet()) {
            startNode(id);
        }
        awaitBrokers(brokerPorts.keySet());
    }

    private Path properties(int id) {
        return dir.resolve("node-" + id + ".properties");
    }

    private void formatAll() throws Exception {
        List<Process> formats = new ArrayList<>();
        List<Integer> ids = new ArrayList<>(brokerPorts.keySet());
        ids.add(0, CONTROLLER);
        for (int id : ids) {
            Files.write(properties(id), id == CONTROLLER ? controllerProperties() : brokerProperties(id), StandardCharsets.UTF_8);
            formats.add(new ProcessBuilder(KafkaBroker.java(List.of("-XX:TieredStopAtLevel=1"),
                    List.of("kafka.tools.StorageTool", "format", "-t", CLUSTER_ID, "-c", properties(id).toString())))
                    .redirectErrorStream(true).redirectOutput(dir.resolve("format-" + id + ".log").toFile()).start());
        }
        for (int i = 0; i < formats.size(); i++) {
            Process format = formats.get(i);
            if (!format.waitFor(120, TimeUnit.SECONDS) || format.exitValue() != 0) {
                format.destroyForcibly();
                throw new IllegalStateException("Kafka storage format failed: " + KafkaBroker.tail(dir.resolve("format-" + ids.get(i) + ".log")));
            }
        }
    }

    private List<String> controllerProperties() {
        return List.of(
                "process.roles=controller",
                "node.id=" + CONTROLLER,
                "listeners=CONTROLLER://127.0.0.1:" + controllerPort,
                "controller.listener.names=CONTROLLER",
                "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
                "controller.quorum.voters=" + CONTROLLER + "@127.0.0.1:" + controllerPort,
                "log.dirs=" + dir.resolve("controller"),
                // A broker that stops heartbeating is fenced (and its partitions led elsewhere) after this.
                "broker.session.timeout.ms=3000");
    }

    private List<String> brokerProperties(int id) {
        int port = brokerPorts.get(id);
        return List.of(
                "process.roles=broker",
                "node.id=" + id,
                "listeners=PLAINTEXT://127.0.0.1:" + port,
                "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
                "controller.listener.names=CONTROLLER",
                "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
                "inter.broker.listener.name=PLAINTEXT",
                "controller.quorum.voters=" + CONTROLLER + "@127.0.0.1:" + controllerPort,
                "log.dirs=" + dir.resolve("broker-" + id),
                "num.partitions=1",
                "group.initial.rebalance.delay.ms=0",
                "log.cleaner.dedupe.buffer.size=2097152",
                "broker.heartbeat.interval.ms=500",
                // A follower that stopped fetching leaves the ISR after this (default 30 s).
                "replica.lag.time.max.ms=3000");
    }

    private synchronized void startNode(int id) throws IOException {
        if (processes.containsKey(id) && processes.get(id).isAlive()) {
            return;
        }
        Path log = dir.resolve("node-" + id + ".log");
        Process process = new ProcessBuilder(KafkaBroker.java(JVM_FLAGS, List.of("kafka.Kafka", properties(id).toString())))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        processes.put(id, process);
    }

    /** Waits until the brokers {@code ids} are registered with the controller and answer. */
    private void awaitBrokers(java.util.Collection<Integer> ids) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(READY_TIMEOUT_SECONDS);
        try (Admin admin = admin()) {
            while (true) {
                for (int id : ids) {
                    Process process;
                    synchronized (this) {
                        process = processes.get(id);
                    }
                    if (process == null || !process.isAlive()) {
                        throw new IllegalStateException("Kafka broker " + id + " is not running: " + KafkaBroker.tail(dir.resolve("node-" + id + ".log")));
                    }
                }
                try {
                    List<Integer> registered = admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).stream().map(Node::id)
                            .collect(Collectors.toList());
                    if (registered.containsAll(ids)) {
                        return;
                    }
                } catch (TimeoutException | ExecutionException notYet) {
                    // Not answering yet.
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Kafka brokers " + ids + " did not register within " + READY_TIMEOUT_SECONDS + " s");
                }
                // Registration rides on heartbeats (500 ms here); ask again shortly.
                Thread.sleep(100);
            }
        }
    }

    /** How many times each record key (base64) has a value in the topic now. */
    Map<String, Integer> valueRecordsByKey(String topic, int partitions) {
        return KafkaBroker.valueRecordsByKey(bootstrapServers(), topic, partitions);
    }

    @Override
    public void close() throws Exception {
        killAll();
        try (var paths = Files.walk(dir)) {
            paths.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // A leftover temp directory is all that can remain.
        }
    }

    @Override
    public String toString() {
        return "Kafka cluster at " + bootstrapServers() + " (" + dir + ")";
    }
}
