package io.durablejournal.flinkagents;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.runtime.actionstate.ActionState;

/**
 * The interrupted entries a subtask's {@link JournalActionStateStore} served without decoding
 * them: an action on the native journal that resumes is handed a stand-in state, and Flink
 * Agents' serde reads the recorded JSON only when something needs its contents.
 *
 * <p>Why a stand-in is enough: when an action starts, Flink Agents' operator (0.3.1 and 0.4,
 * {@code processActionTaskForKey}) reads nothing of the state it is served but {@code
 * isCompleted()}, and builds its journal over it, which the adapter replaces with the native one
 * ({@link ServedStates#installJournal}); the recorded calls cross apart as the hits. The stand-in
 * is a fresh {@code ActionState} over the event the operator asked with, not completed, as the
 * entry. The recorded state (its task event as recorded, its memory updates and output events) is
 * decoded once, when the action completes ({@link NativeJournalContext#stateToComplete}), and
 * never for an action that fails over again before that. Decoding it was half of a resumed
 * action's {@code get} (docs/benchmarks.md, "Recovery").
 *
 * <p>Only the first {@code get} of an entry in a run of its action is answered with a stand-in: a
 * later one (the operator completing an action whose journal never opened) decodes, so a state
 * the operator fills and puts is always the recorded one. A run ends when the entry is written,
 * pruned, or its journal released ({@link NativeJournalContext#release}, as when a store
 * closes). A put of a stand-in itself, which neither supported version makes, still writes the
 * recorded task event ({@link #stateToPut}). {@code StandInStateReadsTest} checks each supported
 * version's class files for reads of a state's task event.
 */
final class DeferredStates {
    /** One stand-in, with the recorded JSON it stands for. */
    static final class Deferred {
        final ActionState standIn;
        private final byte[] recordedJson;
        private ActionState recorded;

        Deferred(Event event, byte[] recordedJson) {
            this.standIn = new ActionState(Objects.requireNonNull(event, "event"));
            this.recordedJson = Objects.requireNonNull(recordedJson, "recordedJson");
        }

        /** The recorded state, without its call results, decoded at the first call. */
        ActionState recorded() {
            if (recorded == null) {
                recorded = ActionStates.fromJson(recordedJson);
            }
            return recorded;
        }
    }

    private final Map<JournalAddress, Deferred> byAddress = new HashMap<>();

    /**
     * A stand-in for the interrupted entry at {@code address}, recorded as {@code recordedJson},
     * or null when one was served for it already (this {@code get} decodes).
     */
    Deferred standInFor(JournalAddress address, Event event, byte[] recordedJson) {
        if (byAddress.containsKey(address)) {
            return null;
        }
        Deferred deferred = new Deferred(event, recordedJson);
        byAddress.put(address, deferred);
        return deferred;
    }

    /**
     * What a put of {@code state} at {@code address} writes: {@code state}, or when it is the
     * stand-in served there, the same state over the entry's recorded task event.
     */
    ActionState stateToPut(JournalAddress address, ActionState state) {
        Deferred deferred = byAddress.get(address);
        if (deferred == null || deferred.standIn != state) {
            return state;
        }
        return new ActionState(deferred.recorded().getTaskEvent(), state.getSensoryMemoryUpdates(),
                state.getShortTermMemoryUpdates(), state.getOutputEvents(), state.getCallResults(), state.isCompleted());
    }

    /**
     * The run of the action that was served {@code standIn} at {@code address} ended without
     * completing it (its journal was released: the attempt is over): a later get starts a run again.
     */
    void runEnded(JournalAddress address, Deferred standIn) {
        byAddress.remove(address, standIn);
    }

    /** The entry at {@code address} was written: its stand-in, if any, is done. */
    void written(JournalAddress address) {
        byAddress.remove(address);
    }

    /** The key's entries up to {@code seqNum} were pruned. */
    void pruned(String keyText, long seqNum) {
        byAddress.keySet().removeIf(address -> address.keyText.equals(keyText) && address.seqNum <= seqNum);
    }
}
