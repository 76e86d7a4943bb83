package io.durablejournal;

import java.util.ArrayList;
import java.util.List;

/** Durable calls ({@link CountingCall}) and persisters for tests that count what really ran and what was persisted. */
final class TestCalls {
    private TestCalls() {}

    /** A persister that keeps every state it was given. */
    static final class CountingPersister implements ActionStatePersister {
        final List<ActionState> persisted = new ArrayList<>();

        @Override
        public void persist(ActionState state) {
            persisted.add(state);
        }

        int count() {
            return persisted.size();
        }

        ActionState last() {
            return persisted.get(persisted.size() - 1);
        }
    }

    static CountingCall<String> returning(String id, String value) {
        return CountingCall.returning(id, value);
    }

    static CountingCall<String> reconcilable(String id, String value, String reconciled) {
        return new CountingCall<>(id, String.class, () -> value, () -> reconciled);
    }

    static <T> CountingCall<T> failing(String id, Class<T> type, Exception failure) {
        return CountingCall.of(id, type, () -> {
            throw failure;
        });
    }

    static byte[] json(String text) {
        return text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** A JSON array tree nested {@code depth} levels deep (built without recursion). */
    static com.fasterxml.jackson.databind.JsonNode deepArray(int depth) {
        com.fasterxml.jackson.databind.node.ArrayNode outer = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.arrayNode();
        com.fasterxml.jackson.databind.node.ArrayNode inner = outer;
        for (int i = 1; i < depth; i++) {
            inner = inner.addArray();
        }
        return outer;
    }
}
