package io.durablejournal.kafka;

import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flink.SubtaskScope;
import io.durablejournal.store.ActionStateStore;
import io.durablejournal.store.LogActionStateStore;
import java.util.Objects;

/**
 * Opens each subtask's Kafka-backed store (see {@link KafkaActionStateStores#factory}). A subtask
 * owns the key groups Flink gives it; its store continues the job's history:
 * <ul>
 *   <li>restored from a checkpoint (any parallelism): the operator hands it the markers of every
 *       subtask of the checkpoint, and it reads its key groups' journals from the topic;</li>
 *   <li>a later attempt without a checkpoint (the job failed before its first one completed):
 *       it reads the journals this job (its job id) wrote so far;</li>
 *   <li>a first start: a new history named by the job id; journals of other jobs in the topic are
 *       never read.</li>
 * </ul>
 */
public final class KafkaStoreFactory implements ActionStateStoreFactory {
    private static final long serialVersionUID = 1L;

    private final KafkaStoreConfig config;

    KafkaStoreFactory(KafkaStoreConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    /** Refused: a Kafka store needs its subtask's key groups, which {@link #open(SubtaskScope)} has. */
    @Override
    public ActionStateStore open(int subtaskIndex, int parallelism) {
        throw new UnsupportedOperationException("a Kafka store is opened with its subtask's key groups: open(SubtaskScope)");
    }

    @Override
    public ActionStateStore open(SubtaskScope scope) {
        LogActionStateStore store = KafkaActionStateStores.open(config, scope.maxParallelism(), scope.firstKeyGroup(),
                scope.lastKeyGroup());
        try {
            if (!scope.restored()) {
                byte[] lineage = scope.jobId().getBytes();
                if (scope.attemptNumber() == 0) {
                    store.startFresh(lineage);
                } else {
                    store.continueHistory(lineage);
                }
            }
            return store;
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
    }

    @Override
    public boolean restoresAtAnyParallelism() {
        return true;
    }

    @Override
    public String toString() {
        return "kafka(" + config + ")";
    }
}
