package io.durablejournal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;

/** Durable calls and persisters for tests that count what really ran and what was persisted. */
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

    /** A call that counts its executions (and its reconciler's) and returns or throws as told. */
    static final class CountingCall<T> implements DurableCallable<T> {
        final String id;
        final Class<T> type;
        final Callable<T> body;
        final Callable<T> reconcile;
        final AtomicInteger calls = new AtomicInteger();
        final AtomicInteger reconciles = new AtomicInteger();

        CountingCall(String id, Class<T> type, Callable<T> body, Callable<T> reconcile) {
            this.id = id;
            this.type = type;
            this.body = body;
            this.reconcile = reconcile;
        }

        @Override
        public String getId() {
            return id;
        }

        @Override
        public Class<T> getResultClass() {
            return type;
        }

        @Override
        public T call() throws Exception {
            calls.incrementAndGet();
            return body.call();
        }

        @Override
        public Callable<T> reconciler() {
            if (reconcile == null) {
                return null;
            }
            return () -> {
                reconciles.incrementAndGet();
                return reconcile.call();
            };
        }
    }

    static CountingCall<String> returning(String id, String value) {
        return new CountingCall<>(id, String.class, () -> value, null);
    }

    static CountingCall<String> reconcilable(String id, String value, String reconciled) {
        return new CountingCall<>(id, String.class, () -> value, () -> reconciled);
    }

    static <T> CountingCall<T> failing(String id, Class<T> type, Exception failure) {
        return new CountingCall<>(id, type, () -> {
            throw failure;
        }, null);
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
