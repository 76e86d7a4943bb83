package io.durablejournal.flinkagents.cluster;

import io.durablejournal.demo.FailoverStaging;
import io.durablejournal.demo.RequestSource;
import io.durablejournal.flinkagents.demo.SupportRequest;

/**
 * {@link RequestSource}'s staged failover across processes, read from the run's files: the gate
 * stages until the crash is claimed (after the restore the requests flow); a checkpoint covers the
 * requests only once they are answered (Flink Agents' operator keeps an action's follow-up events
 * in its state across a barrier); after the burst the source holds the checkpoint lock until the
 * failover cancels it, so the restore is from the checkpoint the gate waited for. A run to be
 * cancelled holds after its last request until it is.
 */
final class FileStaging implements FailoverStaging {
    private static final long serialVersionUID = 1L;

    private final RunFiles files;
    /** Whether the source holds after its last request until the job is cancelled. */
    private final boolean untilCancelled;

    FileStaging(RunFiles files, boolean untilCancelled) {
        this.files = files;
        this.untilCancelled = untilCancelled;
    }

    @Override
    public boolean gateActive() {
        return !files.crashClaimed();
    }

    @Override
    public boolean snapshotCovers(int position) {
        for (int i = 0; i < position; i++) {
            if (!files.isAnswered(SupportRequest.id(i))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public synchronized void afterBurst(RequestSource<?> source) throws InterruptedException {
        while (source.isRunning()) {
            wait();
        }
    }

    @Override
    public synchronized void afterLast(RequestSource<?> source) throws InterruptedException {
        while (untilCancelled && source.isRunning()) {
            wait();
        }
    }

    @Override
    public synchronized void cancelled() {
        notifyAll();
    }
}
