package io.durablejournal.kafka;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.LoaderLeaks;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job jar carrying the Kafka store (its jar, the core's, kafka-clients and their own Jackson),
 * resubmitted {@value #ROUNDS} times on one JVM, each run writing to a real broker:
 * every class loader is collected with its copy of the native library and its Kafka clients, and
 * RSS stays flat ({@link LoaderLeaks}). Flink (for the key groups) is the shared parent, as in
 * Flink's {@code lib/}.
 */
class KafkaLoaderLeakTest {
    /**
     * Fewer rounds than the core's: each opens Kafka clients on the broker (an admin's topic check,
     * an idempotent producer's id), about two seconds a round on a loaded machine.
     */
    private static final int ROUNDS = 25;

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.brokerOnly();

    @TempDir
    Path tmp;

    @Test
    void everyClassLoaderOverTheKafkaStoresJarIsCollectedWithItsLibraryAndClients() throws Exception {
        KafkaBroker broker = KAFKA.broker();
        String topic = broker.createTopic("journal-" + UUID.randomUUID(), 1);
        // Each round also retains its completed action: the retained topic's transport is a second
        // JNI global reference, released at the store's close.
        broker.createTopic(topic + "-retained", 1, Map.of("cleanup.policy", "compact,delete", "retention.ms", "86400000"));
        List<Path> jars = new ArrayList<>();
        for (String property : new String[] {"durablejournal.kafka.test.jar", "durablejournal.flink.test.jar", "durablejournal.test.jar"}) {
            jars.add(Paths.get(System.getProperty(property)));
        }
        jars.addAll(LoaderLeaks.classPathJars("jackson-", "kafka-clients-", "lz4-java-", "snappy-java-", "zstd-jni-", "slf4j-api-"));
        jars.add(LoaderLeaks.locationOf(KafkaLoaderRound.class));
        List<Path> flink = LoaderLeaks.classPathJars("flink-runtime-", "flink-core-", "flink-annotations-");
        String answer = LoaderLeaks.assertNothingLeftBehind(KafkaLoaderRound.class.getName(), ROUNDS, jars, flink, tmp,
                "-DloaderRound.bootstrap=" + broker.bootstrapServers(), "-DloaderRound.topic=" + topic);
        assertTrue(answer != null && answer.startsWith("{\"reply\":1.5} records="), answer);
    }
}
