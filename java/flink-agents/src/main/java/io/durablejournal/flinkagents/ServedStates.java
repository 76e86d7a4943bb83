package io.durablejournal.flinkagents;

import io.durablejournal.JournalSlot;
import java.util.List;
import java.util.Objects;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;

/**
 * The state a {@link JournalActionStateStore} served last on each thread (the operator's mailbox
 * thread), and the installing of that entry's native journal on Flink Agents' runner context
 * ({@link #installJournal}), which recognizes the state Flink Agents built its journal over.
 */
final class ServedStates {
    /** Replaced at every {@code get} that finds a state, cleared when its store closes. */
    private static final ThreadLocal<Served> SERVED = new ThreadLocal<>();

    private ServedStates() {
    }

    /** One state a store served, with where it lives and what the operator asked with. */
    static final class Served {
        final JournalActionStateStore store;
        final JournalAddress address;
        final Object key;
        final Action action;
        final Event event;
        final ActionState state;
        /** The entry's recorded hits when the store split the call slots off {@link #state}, else null (they are in it). */
        final List<JournalSlot> hits;
        /** When {@link #state} is a stand-in ({@link DeferredStates}), the recorded state it stands for; else null. */
        final DeferredStates.Deferred deferred;

        Served(JournalActionStateStore store, JournalAddress address, Object key, Action action, Event event, ActionState state,
                List<JournalSlot> hits) {
            this(store, address, key, action, event, state, hits, null);
        }

        Served(JournalActionStateStore store, JournalAddress address, Object key, Action action, Event event, ActionState state,
                List<JournalSlot> hits, DeferredStates.Deferred deferred) {
            this.store = store;
            this.address = address;
            this.key = key;
            this.action = action;
            this.event = event;
            this.state = state;
            this.hits = hits;
            this.deferred = deferred;
        }
    }

    /** Records what {@code served.store} has just served on this thread. */
    static void served(Served served) {
        SERVED.set(served);
    }

    /** Forgets this thread's served state when {@code store} served it (the store closes). */
    static void forget(JournalActionStateStore store) {
        Served served = SERVED.get();
        if (served != null && served.store == store) {
            SERVED.remove();
        }
    }

    /**
     * The native journal of the action whose state a store served last on the calling thread,
     * installed on Flink Agents' runner context in place of Flink Agents' own journal; the context
     * already installed when it is one. Null when the operator runs without a durable store (no
     * journal is installed then). Flink Agents' operator builds its journal over the state the
     * store has just served ({@code processActionTaskForKey}); the adapter recognizes that state
     * (the same object) and refuses to guess when it is another one.
     *
     * @throws IllegalStateException when the installed journal is not over the state the store
     *     served last on this thread
     */
    static NativeJournalContext installJournal(RunnerContextImpl context) {
        Objects.requireNonNull(context, "context");
        RunnerContextImpl.DurableExecutionContext installed = context.getDurableExecutionContext();
        if (installed == null || installed instanceof NativeJournalContext) {
            return (NativeJournalContext) installed;
        }
        Served served = SERVED.get();
        if (served == null || served.state != installed.getActionState()) {
            throw new IllegalStateException("Flink Agents' journal of action '" + context.getActionName() + "' is not over"
                    + " the state the durable-journal store served last on this thread, so the adapter cannot tell which"
                    + " entry of the store it belongs to: is the operator's store a JournalActionStateStore, and does this"
                    + " Flink Agents version (supported: " + FlinkAgentsCompatibility.SUPPORTED_VERSIONS + ") build the"
                    + " journal right after the store's get?");
        }
        NativeJournalContext journal = served.store.journalContext(served);
        context.setDurableExecutionContext(journal);
        return journal;
    }
}
