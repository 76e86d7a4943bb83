package io.durablejournal.flink;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.functions.RuntimeContext;

/**
 * How far the ordered output of one {@link DurableAsyncActionFunction} subtask has left Flink's
 * async operator: the {@link EmittedRecords} step right after it confirms each record's ordinal
 * as the record passes, and the function reads the confirmations to know which store entries no
 * checkpoint can replay any more.
 *
 * <p>Why: Flink's {@code AsyncWaitOperator} checkpoints every record still in its queue, and
 * that includes records whose action has completed but whose result waits behind an earlier,
 * slower record (ordered mode), or for the mailbox to emit it (it emits one completed record per
 * mailbox step). After a restore those records are run again, so their completed entries must
 * still be in the store. A record's result reaching the next operator is the one signal that it
 * has left the queue; the function cannot see the queue itself.
 *
 * <p>The two steps are separate Flink functions; they find the same ledger through this JVM-wide
 * registry, by job, pipeline (an id both got when the job graph was built), subtask and attempt.
 * Chained (the default: forward, same parallelism) they run on the same task thread, so a
 * confirmation is in before any later checkpoint snapshot; unchained, a confirmation only comes
 * later, and in another JVM never: pruning then happens later or not at all, but never early.
 */
final class EmissionLedger {
    private static final ConcurrentHashMap<String, EmissionLedger> OPEN = new ConcurrentHashMap<>();

    private final String id;
    /** Guarded by the registry's compute calls. */
    private int users;
    private final AtomicLong confirmedThrough = new AtomicLong(-1);

    private EmissionLedger(String id) {
        this.id = id;
    }

    /** The ledger of this subtask attempt of {@code pipeline}; pair with {@link #release()}. */
    static EmissionLedger acquire(String pipeline, RuntimeContext context) {
        String id = context.getJobInfo().getJobId() + "/" + pipeline + "/" + context.getTaskInfo().getIndexOfThisSubtask()
                + "/" + context.getTaskInfo().getAttemptNumber();
        return OPEN.compute(id, (key, existing) -> {
            EmissionLedger ledger = existing != null ? existing : new EmissionLedger(key);
            ledger.users++;
            return ledger;
        });
    }

    void release() {
        OPEN.computeIfPresent(id, (key, ledger) -> --ledger.users == 0 ? null : ledger);
    }

    /** Records {@code ordinal} (and, the output being ordered, every earlier one) as emitted. */
    void confirm(long ordinal) {
        confirmedThrough.accumulateAndGet(ordinal, Math::max);
    }

    /** The largest ordinal confirmed as emitted, or -1. */
    long confirmedThrough() {
        return confirmedThrough.get();
    }

    /** Ledgers currently held, for tests. */
    static int openCount() {
        return OPEN.size();
    }
}
