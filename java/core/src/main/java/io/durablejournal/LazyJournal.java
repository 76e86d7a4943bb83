package io.durablejournal;

// One job: opening a DurableExecutionContext's native journal at its first miss, and answering
// the recorded hits (RecordedReplay) until then.

import io.durablejournal.internal.NativeHandle;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The native journal of one {@link DurableExecutionContext}, opened lazily: while every durable
 * call is a recorded hit ({@link RecordedReplay}) the hit is answered with no native work; the
 * first call or method that needs more opens the journal over the recorded state (or takes it
 * from the context's opener), with its index past the hits answered and the divergence policy
 * set before. A close before that opening closes this too. One per context.
 */
final class LazyJournal {
    static final String NAME = "DurableExecutionContext";

    /** The context: its {@link NativeHandle}'s Cleaner frees the journal once it is unreachable. */
    private final Object owner;
    /**
     * For a context {@code resuming} a stored entry: opens the store's journal over that entry,
     * which persists into the store itself. Null: the journal opens over {@link #recorded}.
     */
    private final Supplier<? extends DurableExecutionContext> opener;
    /**
     * The context {@link #opener} returned, kept reachable while this one is: its {@link
     * NativeHandle}, now this context's journal, is freed by a Cleaner once it is unreachable.
     */
    @SuppressWarnings("unused")
    private DurableExecutionContext openedBy;
    /** Guards the recorded state and the journal's opening (and a close before it). */
    private final Object opening = new Object();
    /** The native journal, or null while calls are answered from {@link #recorded}. */
    private volatile NativeHandle journal;
    /** The recorded hits answered before the journal opens, and the state it opens over. */
    private final RecordedReplay recorded;
    /** Closed before the journal opened (a closed open journal says so itself). */
    private boolean closedUnopened;
    /** Set before the journal opens (then handed to it) or on the open journal; read by the opener. */
    private volatile DivergencePolicy divergencePolicy = DivergencePolicy.WARN;

    private LazyJournal(Object owner, RecordedReplay recorded, Supplier<? extends DurableExecutionContext> opener) {
        this.owner = owner;
        this.recorded = recorded;
        this.opener = opener;
    }

    /** Opens over {@code recorded}'s state, or through {@code opener} when not null, at the first miss. */
    static LazyJournal over(Object owner, RecordedReplay recorded, Supplier<? extends DurableExecutionContext> opener) {
        return new LazyJournal(owner, recorded, opener);
    }

    /** A journal the native library just created, open from the start. */
    static LazyJournal open(Object owner, long nativeJournal) {
        LazyJournal open = new LazyJournal(owner, RecordedReplay.none(), null);
        open.journal = new NativeHandle(owner, NAME, nativeJournal, JournalJni::destroy);
        return open;
    }

    /** Whether the journal is open: then it decides every call. */
    boolean isOpen() {
        return journal != null;
    }

    /** The native journal, opened over the recorded state on first use. */
    NativeHandle get() {
        NativeHandle open = journal;
        return open != null ? open : openJournal();
    }

    private NativeHandle openJournal() {
        synchronized (opening) {
            if (journal == null) {
                if (closedUnopened) {
                    throw new IllegalStateException(NAME + " is closed");
                }
                NativeHandle opened;
                if (opener == null) {
                    opened = new NativeHandle(owner, NAME, JournalJni.create(ActionStateSerde.serialize(recorded.state())),
                            JournalJni::destroy);
                } else {
                    DurableExecutionContext from = Objects.requireNonNull(opener.get(), "the journal opener returned null");
                    opened = from.journal();
                    openedBy = from;
                }
                int answered = recorded.answered();
                DivergencePolicy policy = divergencePolicy;
                try {
                    if (answered > 0) {
                        opened.accept(h -> JournalJni.advanceCallIndexBy(h, answered));
                    }
                    if (policy != DivergencePolicy.WARN) {
                        opened.accept(h -> JournalJni.setDivergencePolicy(h, policy.number()));
                    }
                } catch (RuntimeException e) {
                    opened.close();
                    throw e;
                }
                recorded.drop();
                journal = opened;
            }
            return journal;
        }
    }

    /**
     * The next recorded hit when it is this call's ({@code id}, the call's UTF-8), else null: the
     * journal decides (it is open, the hits are used up, or the next one is another call's). Read
     * and count under the lock: another thread may be opening.
     */
    CallStep nextHit(byte[] id, String functionId, CallGuard guard) {
        synchronized (opening) {
            JournalSlot hit = journal != null || closedUnopened ? null : recorded.next(id);
            if (hit == null) {
                return null;
            }
            guard.refuseWhileCallInProgress("durable call '" + functionId + "'");
            // Counted there, not in the counters: one write per hit (see replayedCallCount).
            recorded.answer();
            return CallStep.replay(hit.result, hit.exception);
        }
    }

    /** Sets the policy now on the open journal, or hands it to the journal when that opens. */
    void setDivergencePolicy(DivergencePolicy policy) {
        synchronized (opening) {
            divergencePolicy = policy;
            NativeHandle open = journal;
            if (open != null) {
                open.accept(h -> JournalJni.setDivergencePolicy(h, policy.number()));
            }
        }
    }

    DivergencePolicy divergencePolicy() {
        return divergencePolicy;
    }

    /** The journal's call index; before it opens, the hits answered. */
    int currentCallIndex() {
        synchronized (opening) {
            if (journal == null && !closedUnopened) {
                return recorded.answered();
            }
        }
        return get().applyAsInt(JournalJni::currentCallIndex);
    }

    /** A snapshot of the journal; before it opens, a copy of the state it will open over. */
    ActionState snapshot() {
        synchronized (opening) {
            if (journal == null && !closedUnopened && recorded.state() != null) {
                return recorded.state().copy();
            }
        }
        return ActionStateSerde.fromCanonical(get().apply(JournalJni::snapshot));
    }

    /** The hits answered before the journal opened plus the replays {@code counters} counted. */
    int replayedCallCount(CallCounters counters) {
        synchronized (opening) {
            return recorded.answered() + counters.replayed();
        }
    }

    /** Frees the native journal, or keeps it from opening. Idempotent. */
    void close() {
        NativeHandle open;
        synchronized (opening) {
            closedUnopened = true;
            recorded.drop();
            open = journal;
        }
        if (open != null) {
            open.close();
        }
    }
}
