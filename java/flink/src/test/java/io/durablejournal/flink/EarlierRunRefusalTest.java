package io.durablejournal.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.ActionState;
import io.durablejournal.demo.AgentJob;
import io.durablejournal.store.ActionStateStores;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.NativeActionStateStore;
import io.durablejournal.testing.Failures;
import io.durablejournal.testing.ForwardingStore;
import io.durablejournal.testing.JobTest;
import io.durablejournal.testing.MiniClusters;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job that starts without a checkpoint over a store holding entries of an earlier run is
 * refused for good (the demo's agent job, no gate and no crash), and the refusal leaves the store
 * as it was. These jobs fail on purpose, so they run on a MiniCluster of their own: the tear-down
 * of a failed job never shares a task manager with {@link AgentJobMiniClusterTest}'s failovers.
 */
class EarlierRunRefusalTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    /** The journaled job in {@code workDir} with no gate and no crash: it fails only if the store refuses it. */
    private static AgentJob.Settings uninterrupted(Path workDir) {
        AgentJob.Settings settings = new AgentJob.Settings(workDir);
        settings.gateAt = -1;
        settings.crashAt = -1;
        return settings;
    }

    @JobTest
    void aJobStartingWithoutACheckpointRefusesAStoreWithEntriesOfAnEarlierRun(@TempDir Path tmp) throws Exception {
        AgentJob.Settings settings = uninterrupted(tmp);
        Path subtask0 = java.nio.file.Files.createDirectories(
                ActionStateStoreFactory.subtaskDirectory(settings.storeDir().toString(), 0));
        try (NativeActionStateStore earlier = ActionStateStores.openFileStore(subtask0)) {
            ActionState completed = new ActionState();
            completed.addOutputEvent(com.fasterxml.jackson.databind.node.TextNode.valueOf("a stale answer"));
            completed.markCompleted();
            earlier.put("user-0", 0, AgentJob.ACTION_NAME, EventIdentity.rootOccurrence("user-0", 0), completed);
        }
        Exception failure = assertThrows(Exception.class, () -> run(settings));
        assertTrue(Failures.causes(failure).contains("entries of an earlier run"), Failures.causes(failure));
        try (NativeActionStateStore store = ActionStateStores.openFileStore(subtask0)) {
            assertEquals(1, store.stats().entries(), "the refusal left the earlier run's store as it was");
        }
    }

    /**
     * The same refusal for a store from a user's own factory, which the operator knows only as an
     * {@code ActionStateStore}: it asks the store how many entries it holds.
     */
    @JobTest
    void aStoreFromAUserFactoryWithEntriesOfAnEarlierRunIsRefusedToo(@TempDir Path tmp) throws Exception {
        AgentJob.Settings settings = uninterrupted(tmp);
        String base = settings.storeDir().toString();
        settings.storeFactory = new WrappingFactory(base);
        Path subtask1 = java.nio.file.Files.createDirectories(ActionStateStoreFactory.subtaskDirectory(base, 1));
        try (NativeActionStateStore earlier = ActionStateStores.openFileStore(subtask1)) {
            ActionState inFlight = new ActionState();
            earlier.put("user-1", 0, AgentJob.ACTION_NAME, EventIdentity.rootOccurrence("user-1", 0), inFlight);
        }
        Exception failure = assertThrows(Exception.class, () -> run(settings));
        assertTrue(Failures.causes(failure).contains("subtask 1 (ForwardingStore{") && Failures.causes(failure).contains(
                "holds 1 entries of an earlier run"), Failures.causes(failure));
        try (NativeActionStateStore store = ActionStateStores.openFileStore(subtask1)) {
            assertEquals(1, store.stats().entries(), "the refusal left the earlier run's store as it was");
        }
    }

    /** A user's factory: file stores under {@code base}, each wrapped in a {@link ForwardingStore}. */
    static final class WrappingFactory implements ActionStateStoreFactory {
        private static final long serialVersionUID = 1L;
        private final String base;

        WrappingFactory(String base) {
            this.base = base;
        }

        @Override
        public io.durablejournal.store.ActionStateStore open(int subtaskIndex, int parallelism) throws Exception {
            Path dir = java.nio.file.Files.createDirectories(ActionStateStoreFactory.subtaskDirectory(base, subtaskIndex));
            return new ForwardingStore(ActionStateStores.openFileStore(dir));
        }
    }

    /** The job checkpointing every 100 ms: it fails at its first attempt, before any checkpoint. */
    private static AgentJob.Outcome run(AgentJob.Settings settings) throws Exception {
        return AgentJob.run(settings, Duration.ofMillis(100));
    }
}
