package io.durablejournal.kafka;

import io.durablejournal.JournalException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * What the store requires of its topic, checked before it writes anything: a topic that would
 * delete live journals (retention), reject every write (min.insync.replicas above the replication
 * factor), or acknowledge a journal record that one broker's loss can take away, is refused at
 * start with the setting to change, instead of failing (or losing calls) later:
 * <ul>
 *   <li>{@code min.insync.replicas=1} with a replication factor of 2 or more: {@code acks=all}
 *       then waits only for the replicas still in sync, which can be the leader alone, so an
 *       acknowledged call may exist on one disk. The replication promises survival of a
 *       machine's loss and the setting silently withdraws it, so it is refused. (A replication
 *       factor of 1, a development topic, promises nothing of the kind: it is warned about.)</li>
 *   <li>{@code unclean.leader.election.enable=true}: a replica that missed acknowledged records
 *       may become leader, and those records are gone; a restore then runs journaled calls
 *       again. Refused.</li>
 * </ul>
 * Its max.message.bytes is read too: the store refuses records the topic would ({@link
 * KafkaRecordLimit}). On a cluster with ACLs, a principal that may not read, write, describe or
 * describe the configs of the topic is refused here too ({@code STORE_IO} naming the topic and
 * the operation), and credentials the cluster refuses fail here, at open.
 */
final class TopicCheck {
    /** What the store needs to know about a topic that passed. */
    static final class Topic {
        final byte[] id;
        final int partitions;
        final int replicationFactor;
        /** The largest batch the broker takes for the topic (its max.message.bytes). */
        final long maxMessageBytes;
        final int minInSyncReplicas;

        Topic(byte[] id, int partitions, int replicationFactor, long maxMessageBytes, int minInSyncReplicas) {
            this.id = id;
            this.partitions = partitions;
            this.replicationFactor = replicationFactor;
            this.maxMessageBytes = maxMessageBytes;
            this.minInSyncReplicas = minInSyncReplicas;
        }
    }

    private TopicCheck() {}

    static Topic check(Admin admin, KafkaStoreConfig config, long timeoutMs) throws Exception {
        String topic = config.topic();
        TopicDescription description;
        Config settings;
        try {
            DescribeTopicsOptions withRights = new DescribeTopicsOptions().includeAuthorizedOperations(true);
            description = admin.describeTopics(Collections.singleton(topic), withRights).allTopicNames()
                    .get(timeoutMs, TimeUnit.MILLISECONDS).get(topic);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                throw refuse(config, "does not exist; create it with cleanup.policy=compact (see docs/kafka-store.md)");
            }
            throw notDescribed(config, "DESCRIBE", e.getCause());
        } catch (TimeoutException e) {
            throw notAnswered(config, timeoutMs, e);
        }
        checkRights(config, description.authorizedOperations());
        try {
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            Map<ConfigResource, Config> configs = admin.describeConfigs(Collections.singleton(resource)).all()
                    .get(timeoutMs, TimeUnit.MILLISECONDS);
            settings = configs.get(resource);
        } catch (ExecutionException e) {
            throw notDescribed(config, "DESCRIBE_CONFIGS", e.getCause());
        } catch (TimeoutException e) {
            throw notAnswered(config, timeoutMs, e);
        }
        String policy = value(settings, "cleanup.policy");
        if (!policy.contains("compact")) {
            throw refuse(config, "has cleanup.policy=" + policy + ": Kafka would delete journals of actions still in"
                    + " flight by age or size; set cleanup.policy=compact (pruned entries are deleted by compaction)");
        }
        if (policy.contains("delete")) {
            String retentionMs = value(settings, "retention.ms");
            String retentionBytes = value(settings, "retention.bytes");
            if (!retentionMs.equals("-1") || !retentionBytes.equals("-1")) {
                throw refuse(config, "has cleanup.policy=" + policy + " with retention.ms=" + retentionMs + " and retention.bytes="
                        + retentionBytes + ": retention would delete journals still in use; use cleanup.policy=compact"
                        + " alone (or set both retention settings to -1)");
            }
        }
        int replicas = description.partitions().get(0).replicas().size();
        int minInSync = Integer.parseInt(value(settings, "min.insync.replicas"));
        if (minInSync > replicas) {
            throw refuse(config, "has min.insync.replicas=" + minInSync + " but a replication factor of " + replicas
                    + ": every acks=all write would be refused");
        }
        if (replicas >= 2 && minInSync < 2) {
            throw refuse(config, "has min.insync.replicas=" + minInSync + " with a replication factor of " + replicas
                    + ": acks=all would then acknowledge a journal record held by the leader alone whenever the other"
                    + " replicas fall behind, and losing that broker loses acknowledged calls; set min.insync.replicas=2");
        }
        String unclean = value(settings, "unclean.leader.election.enable");
        if (unclean.equals("true")) {
            throw refuse(config, "has unclean.leader.election.enable=true: a replica that missed acknowledged journal"
                    + " records could become leader and drop them, and a restore would run those calls again; set"
                    + " unclean.leader.election.enable=false");
        }
        Uuid id = description.topicId();
        byte[] bytes = new byte[16];
        long high = id.getMostSignificantBits();
        long low = id.getLeastSignificantBits();
        for (int i = 0; i < 8; i++) {
            bytes[i] = (byte) (high >>> (56 - 8 * i));
            bytes[8 + i] = (byte) (low >>> (56 - 8 * i));
        }
        String maxMessage = value(settings, "max.message.bytes");
        long maxMessageBytes = maxMessage.isEmpty() ? Long.MAX_VALUE : Long.parseLong(maxMessage);
        return new Topic(bytes, description.partitions().size(), replicas, maxMessageBytes, minInSync);
    }

    /** The operations on its topic the store uses, each one a Kafka ACL operation the principal needs. */
    static final List<AclOperation> NEEDED = List.of(AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE,
            AclOperation.DESCRIBE_CONFIGS);

    /**
     * Refuses a topic this client's principal may not write or read: found at open, not at the
     * first durable call. {@code allowed} is null where the cluster does not say.
     */
    private static void checkRights(KafkaStoreConfig config, Set<AclOperation> allowed) {
        if (allowed == null) {
            return;
        }
        List<String> missing = new ArrayList<>();
        for (AclOperation operation : NEEDED) {
            if (!allowed.contains(operation)) {
                missing.add(operation.name());
            }
        }
        if (!missing.isEmpty()) {
            throw new JournalException(JournalException.Code.STORE_IO, config + ": the cluster's ACLs do not allow this client's"
                    + " principal to " + String.join(" or ", missing) + " the topic; the store needs " + needed()
                    + " on its topic (kafka-acls.sh --add --allow-principal User:<name> --operation <each> --topic "
                    + config.topic() + ")", null);
        }
    }

    private static String needed() {
        List<String> names = new ArrayList<>();
        for (AclOperation operation : NEEDED) {
            names.add(operation.name());
        }
        return String.join(", ", names);
    }

    /** Why the cluster did not describe the topic, in words: refused credentials, missing rights, or something else. */
    private static JournalException notDescribed(KafkaStoreConfig config, String operation, Throwable cause) {
        Throwable shown = config.redact(cause);
        if (cause instanceof AuthenticationException) {
            return new JournalException(JournalException.Code.STORE_IO, config + ": the cluster refused this client's"
                    + " credentials (" + shown.getMessage() + "); check security.protocol, sasl.mechanism and sasl.jaas.config,"
                    + " or the ssl.* settings", shown);
        }
        if (cause instanceof TopicAuthorizationException) {
            return new JournalException(JournalException.Code.STORE_IO, config + ": the cluster's ACLs do not allow this"
                    + " client's principal to " + operation + " the topic (a principal that may not describe a topic is"
                    + " told so whether or not it exists); the store needs " + needed() + " on its topic, and never creates"
                    + " it (create it with cleanup.policy=compact, see docs/kafka-store.md)", shown);
        }
        return new JournalException(JournalException.Code.STORE_IO, config + " could not be described: " + shown, shown);
    }

    private static JournalException notAnswered(KafkaStoreConfig config, long timeoutMs, TimeoutException e) {
        return new JournalException(JournalException.Code.STORE_IO, config + " could not be described within " + timeoutMs
                + " ms (default.api.timeout.ms): is the cluster reachable?", e);
    }

    private static String value(Config settings, String name) {
        ConfigEntry entry = settings.get(name);
        return entry == null || entry.value() == null ? "" : entry.value();
    }

    private static IllegalStateException refuse(KafkaStoreConfig config, String why) {
        return new IllegalStateException("the journal store cannot use " + config + ": the topic " + why);
    }
}
