package io.durablejournal.kafka;

import java.util.Collections;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * Why the cluster did not acknowledge a journal record, in words for the error a durable call
 * fails with: the producer reports every send that ran out of retries as a timeout, so the
 * partition's state (its leader, its in-sync replicas against {@code min.insync.replicas}) is
 * asked of the cluster once the send has failed.
 */
final class PartitionDiagnosis {
    /** How long a diagnosis may add to a failure that already took delivery.timeout.ms. */
    private static final long MAX_WAIT_MS = 5_000;

    private PartitionDiagnosis() {}

    static String describe(KafkaStoreConfig config, long apiTimeoutMs, int[] partitions, int replicas, int minInSync) {
        Set<Integer> asked = new TreeSet<>();
        for (int partition : partitions) {
            asked.add(partition);
        }
        long waitMs = Math.min(apiTimeoutMs, MAX_WAIT_MS);
        Properties props = config.clientProperties();
        props.put("default.api.timeout.ms", Long.toString(waitMs));
        props.put("request.timeout.ms", Long.toString(waitMs));
        try (Admin admin = Admin.create(props)) {
            TopicDescription topic = admin.describeTopics(Collections.singleton(config.topic())).allTopicNames()
                    .get(waitMs, TimeUnit.MILLISECONDS).get(config.topic());
            StringBuilder out = new StringBuilder();
            for (int partition : asked) {
                TopicPartitionInfo info = topic.partitions().get(partition);
                if (out.length() > 0) {
                    out.append("; ");
                }
                out.append("partition ").append(partition).append(": ");
                if (info.leader() == null || info.leader().isEmpty()) {
                    out.append("no leader (every replica's broker is down or fenced)");
                } else if (info.isr().size() < minInSync) {
                    out.append(info.isr().size()).append(" of ").append(replicas).append(" replicas in sync, below")
                            .append(" min.insync.replicas=").append(minInSync)
                            .append(": the cluster refuses acks=all writes until enough replicas are back");
                } else {
                    out.append("leader ").append(info.leader().id()).append(", ").append(info.isr().size()).append(" of ")
                            .append(replicas).append(" replicas in sync");
                }
            }
            return out.toString();
        } catch (Exception e) {
            return "the cluster did not describe the topic within " + waitMs + " ms either (" + config.redact(e.toString())
                    + "): is it reachable?";
        }
    }
}
