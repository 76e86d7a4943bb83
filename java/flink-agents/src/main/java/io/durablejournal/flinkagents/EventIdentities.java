package io.durablejournal.flinkagents;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.durablejournal.store.EventIdentity;
import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.InputEvent;

/**
 * The identity under which the store files the entries of the actions an event triggers: stable
 * across restarts, and distinct for equal events (two equal records of one key, an action that
 * sends the same event twice: apache/flink-agents#1084).
 *
 * <ul>
 *   <li>The <b>input event</b> (type {@code _input_event}, Java's {@code InputEvent} and
 *       Python's): the root occurrence of the input record, derived by the Rust identity code from
 *       the key's text and the input's per-key sequence number ({@link
 *       EventIdentity#rootOccurrence}). Flink Agents gives every record, a replayed one too, a new
 *       random event id; the sequence number is the operator's keyed state, checkpointed with the
 *       record's position.</li>
 *   <li>An <b>event an action emitted</b>: its Flink Agents event id. Within one history it never
 *       changes: the operator runs the actions an event triggers only after the emitting action's
 *       completed state (which holds the event) is in the store; the event waits in keyed state
 *       with its id; and when a restored job finds the emitting action completed, it re-emits the
 *       stored events. Those are read back from JSON, and an event class whose JSON creator drops
 *       the id gets a new one: {@link #reemitted} maps it back to the id it was stored with.</li>
 * </ul>
 * An event without an id (none in Flink Agents 0.3.1) falls back to the digest of its type and
 * attributes ({@link EventDigests}).
 */
final class EventIdentities {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** Re-emitted events remembered at most (the oldest are dropped; pruning drops them earlier). */
    private static final int MAX_REEMITTED = 65_536;

    /** The id a re-emitted event had when its action emitted it, by the id it has now. */
    private final Map<UUID, UUID> reemittedIds = BoundedMap.firstPutFirstDropped(MAX_REEMITTED);
    private final EventDigests digests = new EventDigests();
    /**
     * The last root occurrence derived, with its key text and sequence number: the operator asks
     * for the same input's identity at each of the five or so store calls of an action, and each
     * derivation is a native call.
     */
    private String rootKeyText;
    private long rootSeqNum;
    private EventIdentity root;

    /** The identity of {@code event}, which triggers actions of input {@code seqNum} of the key. */
    EventIdentity identityOf(String keyText, long seqNum, Event event) {
        if (isInput(event)) {
            return rootOccurrence(keyText, seqNum);
        }
        UUID id = event.getId();
        if (id == null) {
            return digests.identityOf(event);
        }
        return emitted(reemittedIds.getOrDefault(id, id));
    }

    /** Whether {@code event} is the input event, whose identity is its input's root occurrence. */
    static boolean isInput(Event event) {
        return InputEvent.EVENT_TYPE.equals(event.getType());
    }

    /**
     * Remembers {@code root} as the root occurrence of {@code keyText}'s input {@code seqNum}, as
     * the native store compared it ({@link RestoredEntries}), so the input's other store calls
     * need not derive it.
     */
    void rootOccurrenceIs(String keyText, long seqNum, EventIdentity root) {
        this.root = root;
        rootKeyText = keyText;
        rootSeqNum = seqNum;
    }

    private EventIdentity rootOccurrence(String keyText, long seqNum) {
        if (root == null || rootSeqNum != seqNum || !rootKeyText.equals(keyText)) {
            root = EventIdentity.rootOccurrence(keyText, seqNum);
            rootKeyText = keyText;
            rootSeqNum = seqNum;
        }
        return root;
    }

    /** The identity of the event an action emitted with Flink Agents' id {@code id}. */
    static EventIdentity emitted(UUID id) {
        return EventIdentity.occurrence("flink-agents-event:" + id);
    }

    /**
     * A completed state found in the store: the operator re-emits {@code readBack}, the output
     * events read from {@code storedJson}; each keeps the id it was stored with.
     */
    void reemitted(byte[] storedJson, List<Event> readBack) {
        JsonNode outputs;
        try {
            outputs = JSON.readTree(storedJson).path("outputEvents");
        } catch (IOException e) {
            throw new IllegalStateException("the store returned a state that is not JSON: " + e.getMessage(), e);
        }
        Iterator<JsonNode> stored = outputs.iterator();
        for (Event event : readBack) {
            if (!stored.hasNext()) {
                break;
            }
            JsonNode storedId = stored.next().get("id");
            if (storedId != null && storedId.isTextual() && event.getId() != null) {
                UUID original = UUID.fromString(storedId.textValue());
                if (!original.equals(event.getId())) {
                    reemittedIds.put(event.getId(), original);
                }
            }
        }
    }
}
