package io.durablejournal.kafka;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A real Kafka 4.0 broker (KRaft, broker and controller in one process) in a child JVM on
 * 127.0.0.1, started once per test JVM and shared by every test class ({@link #shared()}); a
 * broker start costs seconds. Its jars come from Maven Central through the Gradle configuration
 * {@code kafkaBroker} (system property {@code durablejournal.kafka.brokerClasspath}).
 *
 * <p>Tests that stop or restart it ({@link #stop()}, {@link #start()}, {@link #restart()}) keep its
 * log directory and ports, so it comes back with every acknowledged record. Readiness is awaited
 * on the broker itself (an Admin call that retries until the broker answers), never on a clock.
 */
final class KafkaBroker {
    private static final String CLUSTER_ID = "q1Sh-9_ISia_zwGINzRvyQ";
    private static final long READY_TIMEOUT_SECONDS = 90;
    private static KafkaBroker shared;

    private final Path dir;
    private final int brokerPort;
    private final int controllerPort;
    /** Settings added to (or replacing) the plain broker's, e.g. a secured listener ({@link SecuredKafka}). */
    private final Map<String, String> overrides;
    private Process process;

    private KafkaBroker(Path dir, int brokerPort, int controllerPort, Map<String, String> overrides) {
        this.dir = dir;
        this.brokerPort = brokerPort;
        this.controllerPort = controllerPort;
        this.overrides = overrides;
    }

    /** The broker of this JVM, started on first use and stopped when the JVM exits. */
    static synchronized KafkaBroker shared() throws Exception {
        if (shared == null) {
            Path dir = Files.createTempDirectory("durable-journal-kafka");
            shared = startedIn(dir, freePort(), freePort(), Map.of());
            Runtime.getRuntime().addShutdownHook(new Thread(shared::destroy, "stop test Kafka broker"));
        }
        return shared;
    }

    /**
     * A broker of its own in {@code dir} with {@code overrides} over the plain broker's settings
     * ({@code brokerPort} is its PLAINTEXT listener, which {@link #admin()} uses); the caller
     * stops it with {@link #destroy()}.
     */
    static KafkaBroker startedIn(Path dir, int brokerPort, int controllerPort, Map<String, String> overrides) throws Exception {
        KafkaBroker broker = new KafkaBroker(dir, brokerPort, controllerPort, overrides);
        broker.format();
        broker.start();
        return broker;
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        }
    }

    String bootstrapServers() {
        return "127.0.0.1:" + brokerPort;
    }

    /** A store config for {@code topic} on this broker. */
    KafkaStoreConfig config(String topic) {
        return KafkaStoreConfig.of(bootstrapServers(), topic);
    }

    /** Creates a compacted topic the store accepts. */
    String createTopic(String name, int partitions) throws Exception {
        return createTopic(name, partitions, Map.of());
    }

    String createTopic(String name, int partitions, Map<String, String> settings) throws Exception {
        Map<String, String> configs = new HashMap<>();
        configs.put("cleanup.policy", "compact");
        configs.putAll(settings);
        try (Admin admin = admin()) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (true) {
                try {
                    admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(configs))).all()
                            .get(30, TimeUnit.SECONDS);
                    break;
                } catch (ExecutionException deleting) {
                    // A topic of this name that a test just deleted may still be on its way out.
                    if (!(deleting.getCause() instanceof TopicExistsException) || System.nanoTime() > deadline) {
                        throw deleting;
                    }
                }
            }
            // The controller has it; wait until the broker's metadata does too (a store describes it first).
            while (true) {
                try {
                    admin.describeTopics(List.of(name)).allTopicNames().get(30, TimeUnit.SECONDS);
                    return name;
                } catch (ExecutionException notYet) {
                    if (!(notYet.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() > deadline) {
                        throw notYet;
                    }
                }
            }
        }
    }

    /** How many times each record key (base64) has a value, not a tombstone, in the topic now. */
    Map<String, Integer> valueRecordsByKey(String topic, int partitions) {
        return valueRecordsByKey(bootstrapServers(), topic, partitions);
    }

    /** {@link #valueRecordsByKey(String, int)} on the cluster at {@code bootstrapServers}. */
    static Map<String, Integer> valueRecordsByKey(String bootstrapServers, String topic, int partitions) {
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrapServers);
        props.put("key.deserializer", ByteArrayDeserializer.class.getName());
        props.put("value.deserializer", ByteArrayDeserializer.class.getName());
        Map<String, Integer> counts = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            for (int p = 0; p < partitions; p++) {
                TopicPartition tp = new TopicPartition(topic, p);
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                long end = consumer.endOffsets(List.of(tp)).get(tp);
                while (consumer.position(tp) < end) {
                    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                        if (record.value() != null) {
                            counts.merge(Base64.getEncoder().encodeToString(record.key()), 1, Integer::sum);
                        }
                    }
                }
            }
        }
        return counts;
    }

    Admin admin() {
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrapServers());
        props.put("default.api.timeout.ms", "30000");
        return Admin.create(props);
    }

    private Path properties() {
        return dir.resolve("server.properties");
    }

    private void format() throws Exception {
        List<String> plain = List.of(
                "process.roles=broker,controller",
                "node.id=1",
                "listeners=PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort,
                "advertised.listeners=PLAINTEXT://127.0.0.1:" + brokerPort,
                "controller.listener.names=CONTROLLER",
                "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
                "inter.broker.listener.name=PLAINTEXT",
                "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                "log.dirs=" + dir.resolve("data"),
                "num.partitions=1",
                "offsets.topic.replication.factor=1",
                "offsets.topic.num.partitions=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "share.coordinator.state.topic.replication.factor=1",
                "share.coordinator.state.topic.min.isr=1",
                "group.initial.rebalance.delay.ms=0",
                // The log cleaner allocates this on the heap; the default (128 MiB) does not fit -Xmx128m.
                "log.cleaner.dedupe.buffer.size=2097152",
                // Compaction checks often, so a test can see pruned journals deleted.
                "log.cleaner.backoff.ms=100",
                // A restart on the same log dir waits for the old registration's session to expire.
                "broker.session.timeout.ms=2000",
                "broker.heartbeat.interval.ms=500");
        List<String> lines = new ArrayList<>();
        for (String line : plain) {
            if (!overrides.containsKey(line.substring(0, line.indexOf('=')))) {
                lines.add(line);
            }
        }
        overrides.forEach((key, value) -> lines.add(key + "=" + value));
        Files.write(properties(), lines, StandardCharsets.UTF_8);
        run(List.of("kafka.tools.StorageTool", "format", "-t", CLUSTER_ID, "-c", properties().toString()), dir.resolve("format.log"));
    }

    static List<String> java(List<String> jvmArgs, List<String> mainAndArgs) {
        String classpath = System.getProperty("durablejournal.kafka.brokerClasspath");
        if (classpath == null || classpath.isEmpty()) {
            throw new IllegalStateException("system property durablejournal.kafka.brokerClasspath is not set (gradle :kafka:junitTest sets it)");
        }
        List<String> command = new ArrayList<>();
        command.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        command.addAll(jvmArgs);
        command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        command.add("-cp");
        command.add(classpath);
        command.addAll(mainAndArgs);
        return command;
    }

    static void run(List<String> mainAndArgs, Path log) throws Exception {
        Process format = new ProcessBuilder(java(List.of(), mainAndArgs)).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        if (!format.waitFor(60, TimeUnit.SECONDS) || format.exitValue() != 0) {
            format.destroyForcibly();
            throw new IllegalStateException("Kafka storage format failed: " + Files.readString(log));
        }
    }

    /** Starts the broker process and waits until it answers. */
    synchronized void start() throws Exception {
        if (process != null && process.isAlive()) {
            return;
        }
        Path log = dir.resolve("broker.log");
        process = new ProcessBuilder(java(List.of("-Xmx128m", "-XX:+UseSerialGC"), List.of("kafka.Kafka", properties().toString())))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        awaitReady(log);
    }

    private void awaitReady(Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(READY_TIMEOUT_SECONDS);
        try (Admin admin = admin()) {
            while (true) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("the Kafka broker exited with " + process.exitValue() + ": " + tail(log));
                }
                try {
                    // The admin client retries until the broker has registered and answers.
                    if (!admin.describeCluster().nodes().get(1, TimeUnit.SECONDS).isEmpty()) {
                        return;
                    }
                } catch (TimeoutException | ExecutionException notYet) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("the Kafka broker did not answer within " + READY_TIMEOUT_SECONDS + " s: "
                                + tail(log), notYet);
                    }
                }
            }
        }
    }

    static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }

    /** Stops the broker (SIGTERM, a clean shutdown) and waits for the process to exit. */
    synchronized void stop() throws InterruptedException {
        if (process != null) {
            process.destroy();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        }
    }

    /** Kills the broker at once (SIGKILL), as a machine failure would. */
    synchronized void kill() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly().waitFor();
        }
    }

    /** CPU time the broker process has used so far (user + system), from /proc; -1 where there is none. */
    synchronized long cpuNanos() {
        return process == null ? -1 : ProcessCpu.nanos(process.pid());
    }

    synchronized void restart() throws Exception {
        stop();
        start();
    }

    /** Kills the broker and removes its directory. */
    void destroy() {
        try {
            kill();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (var paths = Files.walk(dir)) {
            paths.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // The JVM is exiting; a leftover temp directory is all that can remain.
        }
    }

    @Override
    public String toString() {
        return "Kafka broker at " + bootstrapServers() + " (" + dir + ")" + (process == null ? "" : " " + Arrays.asList(process.pid()));
    }
}
