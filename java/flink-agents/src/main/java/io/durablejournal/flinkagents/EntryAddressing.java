package io.durablejournal.flinkagents;

import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.GroupedKey;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where {@link JournalActionStateStore} files a Flink key: the key's text ({@link #keyText}, what
 * the operator finds an entry by) and, for a store that restores at any parallelism, that text in
 * the Flink key's own key group ({@link #storeKey}). One per opened subtask store. An entry is
 * addressed so that the operator finds it again after a restore in another JVM:
 * <ul>
 *   <li><b>key</b>: the Flink key's {@code toString()}. The operator looks an action up with
 *       {@code key.toString()} first and with the key object afterwards; filing every entry under
 *       the key's text makes both find it. The key type's {@code toString()} must be deterministic
 *       across JVMs and tell distinct keys apart (strings, numbers, {@code Row} and tuples do; a
 *       {@code _} in it means nothing); a key class that does not override {@code toString()}
 *       is refused with an {@link IllegalArgumentException}. A store that restores at any
 *       parallelism (the Kafka store, which groups entries by Flink key group) is given the
 *       text in the Flink key's own key group ({@link GroupedKey}), so the subtask that owns the
 *       key owns its journals whatever the key's type.</li>
 *   <li><b>action</b>: its name, unique in the agent plan (Flink Agents' Kafka store uses the
 *       action's identity hash code, which differs in every JVM).</li>
 *   <li><b>event</b>: the input record's root occurrence (key and sequence number) for the input
 *       event, the Flink Agents event id for an event an action emitted ({@link EventIdentities}):
 *       stable across restarts and distinct for equal events.</li>
 * </ul>
 */
final class EntryAddressing {
    private static final Logger LOG = LoggerFactory.getLogger(JournalActionStateStore.class);

    private final boolean restoresAtAnyParallelism;
    private final int maxParallelism;
    /** The operator's current Flink key (null outside a keyed call), or null: see {@link #keyedBy}. */
    private Supplier<Object> currentKey;
    private boolean warnedOfKeyGroups;

    /**
     * @param restoresAtAnyParallelism whether the store groups its entries by Flink key group
     * @param maxParallelism the number of Flink key groups (the job's max parallelism)
     */
    EntryAddressing(boolean restoresAtAnyParallelism, int maxParallelism) {
        this.restoresAtAnyParallelism = restoresAtAnyParallelism;
        this.maxParallelism = maxParallelism;
    }

    /** See {@link JournalActionStateStore#keyedBy}. */
    void keyedBy(Supplier<Object> operatorsCurrentKey) {
        this.currentKey = Objects.requireNonNull(operatorsCurrentKey, "operatorsCurrentKey");
    }

    /**
     * What the store's calls are given as the key: its text, in the Flink key's own key group when
     * the store restores at any parallelism (the Kafka store groups entries by key group, and
     * would otherwise group them by the text's, which is Flink's only for a {@code String} key).
     * A {@code String} the operator passes for a key of another type (its text) is that key's.
     *
     * @param describe the store, for the warning of {@link #warnOfKeyGroupsOnce}
     */
    Object storeKey(Object key, String keyText, Supplier<String> describe) {
        if (!restoresAtAnyParallelism) {
            return keyText;
        }
        if (currentKey == null) {
            warnOfKeyGroupsOnce(key, describe);
            return keyText;
        }
        Object flinkKey = key instanceof String ? flinkKeyOfText(keyText) : key;
        if (flinkKey instanceof String) {
            return keyText;
        }
        return GroupedKey.of(keyText, KeyGroupRangeAssignment.assignToKeyGroup(flinkKey, maxParallelism));
    }

    /** Where the entry of action {@code actionName} on the event identified as {@code event} lives. */
    JournalAddress address(Object key, String keyText, long seqNum, String actionName, EventIdentity event,
            Supplier<String> describe) {
        return new JournalAddress(keyText, storeKey(key, keyText, describe), seqNum, actionName, event);
    }

    /**
     * Without the operator's current key (a store used by another operator than {@link
     * DurableAgents}'), a key's text cannot be told from a {@code String} key: the entries stay in
     * the key group of the text, as before {@link GroupedKey}, and a key that is not a {@code
     * String} is read from a key group its subtask may not own.
     */
    private void warnOfKeyGroupsOnce(Object key, Supplier<String> describe) {
        if (!warnedOfKeyGroups && !(key instanceof String)) {
            warnedOfKeyGroups = true;
            LOG.warn("{}: the Flink keys are {}, not Strings, and the store does not know the operator's current key (it is"
                    + " not under DurableAgents' operator): their journals are grouped by the key groups of their text, not"
                    + " Flink's, and the subtask reads such key groups from the store on first use", describe.get(),
                    key.getClass().getName());
        }
    }

    /** The operator's current key when {@code keyText} is its text, else the text (a {@code String} key). */
    private Object flinkKeyOfText(String keyText) {
        Object current = currentKey.get();
        if (current == null || current instanceof String || !keyText.equals(current.toString())) {
            return keyText;
        }
        return current;
    }

    /** The text the store files a Flink key under (see the class comment). */
    static String keyText(Object key) {
        Objects.requireNonNull(key, "key");
        if (key instanceof String) {
            return (String) key;
        }
        Class<?> type = key.getClass();
        try {
            if (type.getMethod("toString").getDeclaringClass() == Object.class) {
                throw new IllegalArgumentException("Flink key of type " + type.getName() + " does not override toString(): the"
                        + " durable journal files an action under its key's text, which must be the same in every JVM");
            }
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("every class has toString()", e);
        }
        return Objects.requireNonNull(key.toString(), "key.toString()");
    }
}
