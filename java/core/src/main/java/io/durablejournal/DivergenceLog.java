package io.durablejournal;

import io.durablejournal.internal.LibraryLog;
import java.nio.charset.StandardCharsets;

/**
 * Counts and logs the divergences a {@link DurableExecutionContext}'s journal cut under {@link
 * DivergencePolicy#WARN} (a re-run made a different call at a recorded position: the journal was
 * cut there and the call ran). The journal decides and reports; this only says so.
 */
final class DivergenceLog {
    /** Named after the context, whose divergences users configure logging for. */
    private static final LibraryLog LOG = LibraryLog.of(DurableExecutionContext.class);

    /** Divergences reported since the context was created. */
    private volatile int diverged;

    int count() {
        return diverged;
    }

    /**
     * The journal cut a divergence under WARN: count it and say so. {@code diffJson} is its report
     * (see {@link NonDeterministicReplayException} for the fields).
     */
    void report(byte[] diffJson) {
        diverged++;
        LOG.warn("a durable call diverged from the journal of its action "
                + "(divergence policy WARN): the journal was cut at that position, so the call and every later one run "
                + "again; an action that must not re-run them needs DivergencePolicy.FAIL. Diff: "
                + new String(diffJson, StandardCharsets.UTF_8));
    }

    /** After a call on journal {@code h} that may have cut a divergence under WARN: takes and reports it. */
    void reportIfAny(long h, DivergencePolicy policy) {
        if (policy == DivergencePolicy.WARN) {
            byte[] diff = JournalJni.takeUnreportedDivergence(h);
            if (diff != null) {
                report(diff);
            }
        }
    }
}
