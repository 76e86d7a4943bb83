package io.durablejournal.flink;

import io.durablejournal.store.ActionStateStore;
import io.durablejournal.store.ActionStateStores;
import io.durablejournal.store.FileStoreOptions;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Objects;

/**
 * Opens the store of one parallel subtask of a {@link DurableActionFunction}. Serialized with the
 * job graph; called on the task manager when the subtask starts (and again after every restart).
 */
@FunctionalInterface
public interface ActionStateStoreFactory extends Serializable {
    ActionStateStore open(int subtaskIndex, int parallelism) throws Exception;

    /**
     * Opens the store of the subtask {@code scope} describes. The operators call this one; the
     * default calls {@link #open(int, int)}. A factory whose stores need the key groups, the job
     * or whether the subtask was restored (the Kafka store) overrides it.
     */
    default ActionStateStore open(SubtaskScope scope) throws Exception {
        return open(scope.subtaskIndex(), scope.parallelism());
    }

    /**
     * Whether a store of this factory can be restored at another parallelism than its checkpoint
     * was taken with: then every subtask is handed the recovery markers of all subtasks (Flink
     * union list state), and the async operator prunes entry by entry ({@link
     * ActionStateStore#pruneStateAt}). False by default: each subtask gets its own markers back,
     * which a per-subtask store (the file store) checks, so a rescaled restore is refused.
     */
    default boolean restoresAtAnyParallelism() {
        return false;
    }

    /**
     * This factory with {@code digest} named as the plan digest of the actions its stores retain
     * ({@link FileStoreOptions#planDigest}), for a replay to tell which plan recorded them: the
     * file stores with retention on and no digest of their own take it; every other factory is
     * returned as it is. Flink Agents' operator factory calls this with its agent plan's digest.
     */
    default ActionStateStoreFactory withPlanDigest(String digest) {
        return this;
    }

    /**
     * The embedded file store, one directory per subtask: {@code baseDirectory/subtask-<index>}
     * (created when missing, and made {@code 0700} by the store; an existing one that group or
     * others can reach is refused unless the options' permission check says otherwise, see
     * {@code docs/security.md}). The directory must survive a task restart, so on a real cluster it
     * is a local disk of the task manager that runs the subtask again (or shared storage).
     */
    static ActionStateStoreFactory fileStores(String baseDirectory) {
        return new FileStores(baseDirectory, FileStoreOptions.defaults());
    }

    /** As {@link #fileStores(String)} with group commit: one fsync per {@code maxBatch} records. */
    static ActionStateStoreFactory fileStores(String baseDirectory, int groupCommitBatch) {
        return new FileStores(baseDirectory, FileStoreOptions.defaults().groupCommit(groupCommitBatch));
    }

    /** As {@link #fileStores(String)} with the given options (durability mode, compaction). */
    static ActionStateStoreFactory fileStores(String baseDirectory, FileStoreOptions options) {
        return new FileStores(baseDirectory, options);
    }

    /** In-memory stores: journals survive action re-runs within a task, not a task restart. */
    static ActionStateStoreFactory inMemory() {
        return new InMemory();
    }

    /** The directory {@link #fileStores} uses for one subtask. */
    static Path subtaskDirectory(String baseDirectory, int subtaskIndex) {
        return Paths.get(baseDirectory, "subtask-" + subtaskIndex);
    }

    /** See {@link ActionStateStoreFactory#fileStores(String)}. */
    final class FileStores implements ActionStateStoreFactory {
        private static final long serialVersionUID = 1L;
        private final String baseDirectory;
        private final FileStoreOptions options;

        FileStores(String baseDirectory, FileStoreOptions options) {
            this.baseDirectory = Objects.requireNonNull(baseDirectory, "baseDirectory");
            this.options = Objects.requireNonNull(options, "options");
        }

        @Override
        public ActionStateStore open(int subtaskIndex, int parallelism) throws Exception {
            Path dir = Files.createDirectories(subtaskDirectory(baseDirectory, subtaskIndex));
            return ActionStateStores.openFileStore(dir, options);
        }

        @Override
        public ActionStateStoreFactory withPlanDigest(String digest) {
            boolean retains = options.getRetainFor() != null;
            return retains && options.getPlanDigest() == null && digest != null
                    ? new FileStores(baseDirectory, options.planDigest(digest)) : this;
        }

        @Override
        public String toString() {
            return "fileStores(" + baseDirectory + ", " + options + ")";
        }
    }

    /** See {@link ActionStateStoreFactory#inMemory()}. */
    final class InMemory implements ActionStateStoreFactory {
        private static final long serialVersionUID = 1L;

        @Override
        public ActionStateStore open(int subtaskIndex, int parallelism) {
            return ActionStateStores.inMemory();
        }

        @Override
        public String toString() {
            return "inMemory()";
        }
    }
}
