package io.durablejournal.flinkagents;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.durablejournal.identity.CanonicalObject;
import io.durablejournal.identity.DurableIds;
import io.durablejournal.store.EventIdentity;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.agents.api.Event;

/**
 * The identity under which the store files the entries of the actions an event triggers: a
 * digest of the event's type and attributes, never of its {@code id}. Flink Agents 0.3.1 gives
 * every record a new {@code InputEvent} with a random id, also a record the source replays after
 * a restore, so only the event's content finds the entry again.
 *
 * <p>The attributes are written as JSON (as Flink Agents' {@code ActionStateSerde} writes an
 * event) and read back into a tree; the tree is digested by the Rust identity code ({@link
 * DurableIds#computeArgsDigest}: SHA-256 over a canonical encoding where map order never
 * matters and numbers are compared by value). An event and the copy Flink Agents reads back from a
 * stored ActionState (a POJO attribute becomes a map, a {@code float} a {@code double} with the
 * same decimal text) therefore get the same digest, in every JVM.
 *
 * <p>A digest is computed once per event object: later calls for the same event (same id) reuse
 * it, so an action that changes the attributes of its own event still reaches its entry.
 */
final class EventDigests {
    /**
     * Writes NaN and infinities as the strings "NaN", "Infinity" (Jackson's default), so they reach
     * the digest as those strings; reads bare ones leniently; floats read as doubles.
     */
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .build();
    /**
     * A NaN number in the tree (the canonical encoding has none). Jackson's default writer never
     * puts one there, but a NaN must still have an identity if one arrives. docs/identity.md.
     */
    private static final CanonicalObject NOT_A_NUMBER = CanonicalObject.of("json.NaN", Collections.emptyMap());
    private static final int CACHED_EVENTS = 256;

    private final Map<UUID, EventIdentity> recent = BoundedMap.leastRecentlyUsed(CACHED_EVENTS);

    /** The event's identity in the store. */
    EventIdentity identityOf(Event event) {
        UUID id = event.getId();
        if (id != null) {
            EventIdentity known = recent.get(id);
            if (known != null) {
                return known;
            }
        }
        EventIdentity identity = EventIdentity.attributes(digest(event));
        if (id != null) {
            recent.put(id, identity);
        }
        return identity;
    }

    /** The 8 bytes of the digest of the event's type and attributes. */
    static byte[] digest(Event event) {
        String hex = DurableIds.computeArgsDigest(Arrays.asList(event.getType(), canonical(attributesTree(event))),
                Collections.emptyMap());
        return hexBytes(hex);
    }

    private static JsonNode attributesTree(Event event) {
        try {
            return JSON.readTree(JSON.writeValueAsBytes(event.getAttributes()));
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("the attributes of event " + event.getType() + " (" + event.getId()
                    + ") cannot be written as JSON, so no durable identity can be derived from them: " + e.getMessage(), e);
        }
    }

    /** The tree as the values the canonical encoding takes: maps, lists, strings, integers, doubles, booleans, null. */
    private static Object canonical(JsonNode node) {
        switch (node.getNodeType()) {
            case OBJECT: {
                Map<String, Object> fields = new LinkedHashMap<>();
                for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> field = it.next();
                    fields.put(field.getKey(), canonical(field.getValue()));
                }
                return fields;
            }
            case ARRAY: {
                List<Object> items = new ArrayList<>(node.size());
                for (JsonNode item : node) {
                    items.add(canonical(item));
                }
                return items;
            }
            case STRING:
                return node.textValue();
            case NUMBER:
                if (node.isIntegralNumber()) {
                    return node.bigIntegerValue();
                }
                double value = node.doubleValue();
                return Double.isNaN(value) ? NOT_A_NUMBER : value;
            case BOOLEAN:
                return node.booleanValue();
            case NULL:
                return null;
            default:
                // Jackson writes binary as base64 text, so a tree read from JSON has no other kinds.
                return node.asText();
        }
    }

    private static byte[] hexBytes(String hex) {
        byte[] out = new byte[hex.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }
}
