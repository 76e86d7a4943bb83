package io.durablejournal.flinkagents.replay;

import io.durablejournal.flink.replay.ReplayStop;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.agents.api.context.MemoryObject;
import org.apache.flink.agents.api.context.MemoryUpdate;
import org.apache.flink.agents.runtime.memory.MemoryObjectImpl;

/**
 * The sensory and short-term memory a replayed Flink Agents action reads, rebuilt as Flink Agents'
 * operator rebuilds it for an action it re-emits (its recorded updates set in order, on Flink
 * Agents' own {@link MemoryObjectImpl}): short-term memory from every retained action of the key
 * before it, sensory memory from those of its own input record (the operator clears it after each).
 *
 * <p>Rebuilt only when the retained history of the key is whole: every input record of the key
 * from its first (sequence number 0) to the action's own has its input-event action retained. A
 * pruned start or a gap makes the memory "not reconstructible": the action's first read ends it
 * there ({@link ReplayStop}), and the report says so; an action that never reads memory is
 * replayed all the same.
 */
final class ReplayMemory {
    private final MemoryObject sensory;
    private final MemoryObject shortTerm;
    private final List<MemoryUpdate> sensoryUpdates = new ArrayList<>();
    private final List<MemoryUpdate> shortTermUpdates = new ArrayList<>();
    private final Reads reads;
    private final int rebuiltFrom;

    /** Whether the action read memory, and what a read does when the memory is not whole. */
    static final class Reads {
        /** Why the memory cannot be rebuilt, or null. */
        final String notReconstructible;
        boolean read;
        /** Set when a read found the memory not reconstructible. */
        boolean refused;

        Reads(String notReconstructible) {
            this.notReconstructible = notReconstructible;
        }

        void read() {
            read = true;
            if (notReconstructible != null) {
                refused = true;
                throw new ReplayStop("memory not reconstructible: " + notReconstructible);
            }
        }
    }

    /**
     * The memory of {@code action}, rebuilt from {@code before}: the retained actions of its key
     * that completed before it, in the order they completed (for a journal in flight, all of them:
     * the operator runs one action of a key at a time).
     */
    ReplayMemory(List<RecordedAction> before, RecordedAction action) throws Exception {
        MapMemoryStore sensoryStore = new MapMemoryStore();
        MapMemoryStore shortTermStore = new MapMemoryStore();
        MemoryObject sensoryRebuild = new MemoryObjectImpl(MemoryObject.MemoryType.SENSORY, sensoryStore,
                MemoryObjectImpl.ROOT_KEY, new ArrayList<>());
        MemoryObject shortTermRebuild = new MemoryObjectImpl(MemoryObject.MemoryType.SHORT_TERM, shortTermStore,
                MemoryObjectImpl.ROOT_KEY, new ArrayList<>());
        Set<Long> inputsSeen = new HashSet<>();
        for (RecordedAction earlier : before) {
            if (earlier.state == null) {
                continue; // unreadable: its input counts as missing
            }
            if (earlier.onInputEvent()) {
                inputsSeen.add(earlier.seq());
            }
            for (MemoryUpdate update : earlier.state.getShortTermMemoryUpdates()) {
                shortTermRebuild.set(update.getPath(), update.getValue());
            }
            if (earlier.seq() == action.seq()) {
                for (MemoryUpdate update : earlier.state.getSensoryMemoryUpdates()) {
                    sensoryRebuild.set(update.getPath(), update.getValue());
                }
            }
        }
        if (action.onInputEvent()) {
            inputsSeen.add(action.seq());
        }
        this.rebuiltFrom = before.size();
        this.reads = new Reads(missing(action, inputsSeen));
        this.sensory = new ObservedMemory(new MemoryObjectImpl(MemoryObject.MemoryType.SENSORY, sensoryStore,
                MemoryObjectImpl.ROOT_KEY, sensoryUpdates), reads);
        this.shortTerm = new ObservedMemory(new MemoryObjectImpl(MemoryObject.MemoryType.SHORT_TERM, shortTermStore,
                MemoryObjectImpl.ROOT_KEY, shortTermUpdates), reads);
    }

    /** Which input record of the key has no retained input-event action before this one, or null: none. */
    private static String missing(RecordedAction action, Set<Long> inputsSeen) {
        for (long seq = 0; seq <= action.seq(); seq++) {
            if (!inputsSeen.contains(seq)) {
                return seq == 0 ? "the retained history of key " + action.key() + " does not start at its first input"
                        + " (sequence number 0 was pruned or never retained)"
                        : "the retained history of key " + action.key() + " has a gap: no action of its input " + seq
                        + " is retained";
            }
        }
        return null;
    }

    MemoryObject sensory() {
        return sensory;
    }

    MemoryObject shortTerm() {
        return shortTerm;
    }

    List<MemoryUpdate> sensoryUpdates() {
        return sensoryUpdates;
    }

    List<MemoryUpdate> shortTermUpdates() {
        return shortTermUpdates;
    }

    /** Whether the action's read found the memory not reconstructible (and stopped it). */
    boolean refused() {
        return reads.refused;
    }

    /** What the action's memory reads got, for the report. */
    String describe() {
        if (reads.refused) {
            return "not reconstructible";
        }
        if (!reads.read) {
            return "not read";
        }
        return "rebuilt from " + rebuiltFrom + " recorded action" + (rebuiltFrom == 1 ? "" : "s") + " of the key";
    }

    /** Why the memory is not reconstructible, or null. */
    String notReconstructible() {
        return reads.notReconstructible;
    }
}
