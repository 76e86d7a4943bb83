package io.durablejournal;

/**
 * How a {@link DurableExecutionContext}'s durable calls went since it was created, as its journal
 * decided them: replayed (the recorded outcome answered), executed (the body ran) or reconciled
 * (the reconciler ran over a PENDING slot). The recorded hits answered before the journal opened
 * are counted by {@link RecordedReplay}, one write per hit. Written by the thread holding the
 * journal, read by anyone.
 */
final class CallCounters {
    private volatile int replayed;
    private volatile int executed;
    private volatile int reconciled;

    /** Counts one call by the kind of step the journal decided ({@link CallStep#kind}). */
    void count(int stepKind) {
        if (stepKind == CallStep.REPLAY) {
            replayed++;
        } else if (stepKind == CallStep.RUN) {
            executed++;
        } else {
            reconciled++;
        }
    }

    /** A {@code durableExecuteAll} batch decided: so many of its calls replay, so many run. */
    void countBatch(int replayedCalls, int executedCalls) {
        replayed += replayedCalls;
        executed += executedCalls;
    }

    int replayed() {
        return replayed;
    }

    int executed() {
        return executed;
    }

    int reconciled() {
        return reconciled;
    }
}
