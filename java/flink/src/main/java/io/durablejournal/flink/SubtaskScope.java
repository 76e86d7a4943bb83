package io.durablejournal.flink;

import java.util.Objects;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/**
 * What an {@link ActionStateStoreFactory} knows about the subtask it opens a store for: its index
 * and parallelism, the Flink key groups it owns (which decide which keys' journals it needs), the
 * job and attempt, and whether the subtask starts from a checkpoint.
 */
public final class SubtaskScope {
    private final int subtaskIndex;
    private final int parallelism;
    private final int maxParallelism;
    private final int attemptNumber;
    private final boolean restored;
    private final JobID jobId;

    public SubtaskScope(int subtaskIndex, int parallelism, int maxParallelism, int attemptNumber, boolean restored, JobID jobId) {
        if (parallelism < 1 || subtaskIndex < 0 || subtaskIndex >= parallelism || maxParallelism < parallelism) {
            throw new IllegalArgumentException("subtask " + subtaskIndex + " of " + parallelism + " with max parallelism "
                    + maxParallelism);
        }
        this.subtaskIndex = subtaskIndex;
        this.parallelism = parallelism;
        this.maxParallelism = maxParallelism;
        this.attemptNumber = attemptNumber;
        this.restored = restored;
        this.jobId = Objects.requireNonNull(jobId, "jobId");
    }

    /** The scope of the running subtask described by {@code task} in job {@code jobId}. */
    public static SubtaskScope of(TaskInfo task, JobID jobId, boolean restored) {
        return new SubtaskScope(task.getIndexOfThisSubtask(), task.getNumberOfParallelSubtasks(),
                task.getMaxNumberOfParallelSubtasks(), task.getAttemptNumber(), restored, jobId);
    }

    public int subtaskIndex() {
        return subtaskIndex;
    }

    public int parallelism() {
        return parallelism;
    }

    /** The number of key groups. */
    public int maxParallelism() {
        return maxParallelism;
    }

    /** 0 for the first attempt of the job's run, counting up with every restart. */
    public int attemptNumber() {
        return attemptNumber;
    }

    /** Whether the subtask starts from a checkpoint or savepoint. */
    public boolean restored() {
        return restored;
    }

    public JobID jobId() {
        return jobId;
    }

    /** The first key group this subtask owns. */
    public int firstKeyGroup() {
        return keyGroups().getStartKeyGroup();
    }

    /** The last key group this subtask owns (inclusive). */
    public int lastKeyGroup() {
        return keyGroups().getEndKeyGroup();
    }

    private KeyGroupRange keyGroups() {
        return KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(maxParallelism, parallelism, subtaskIndex);
    }

    /** The key group of a record key, as Flink assigns it for keyed state. */
    public int keyGroupOf(Object key) {
        return KeyGroupRangeAssignment.assignToKeyGroup(key, maxParallelism);
    }

    @Override
    public String toString() {
        return "subtask " + subtaskIndex + "/" + parallelism + " (key groups " + firstKeyGroup() + ".." + lastKeyGroup() + " of "
                + maxParallelism + ", attempt " + attemptNumber + (restored ? ", restored" : "") + ")";
    }
}
