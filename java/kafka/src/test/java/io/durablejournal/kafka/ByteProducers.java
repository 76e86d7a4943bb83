package io.durablejournal.kafka;

import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Plain Kafka producers of raw key and value bytes, for the records a test writes past the
 * store: a foreign record, an earlier job's dead ones, a bare producer to compare the store with.
 */
final class ByteProducers {
    private ByteProducers() {}

    /** A producer to {@code bootstrapServers} with {@code settings} on top of the client's defaults. */
    static KafkaProducer<byte[], byte[]> open(String bootstrapServers, Map<String, String> settings) {
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrapServers);
        return open(props, settings);
    }

    /** A producer with {@code clientProperties} (a store's, say) and {@code settings} on top. */
    static KafkaProducer<byte[], byte[]> open(Properties clientProperties, Map<String, String> settings) {
        Properties props = new Properties();
        props.putAll(clientProperties);
        props.putAll(settings);
        props.put("key.serializer", ByteArraySerializer.class.getName());
        props.put("value.serializer", ByteArraySerializer.class.getName());
        return new KafkaProducer<>(props);
    }
}
