package io.durablejournal.flink.replay;

/**
 * Ends a replayed action where it cannot go on without running a real call: the call the
 * recording lacks (or a divergence the journal refused). An {@link Error}, so that a candidate
 * catching {@code Exception} around its calls does not carry on past it; never leaves the replayer.
 */
public final class ReplayStop extends Error {
    private static final long serialVersionUID = 1L;

    public ReplayStop(String message) {
        super(message, null, false, false);
    }
}
