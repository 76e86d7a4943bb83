package io.durablejournal.store;

import io.durablejournal.DurableCallable;
import java.util.concurrent.atomic.AtomicInteger;

/** A durable call returning a fixed string that counts how often it really ran. */
final class CountedCall implements DurableCallable<String> {
    final String id;
    final String value;
    final AtomicInteger runs = new AtomicInteger();

    CountedCall(String id, String value) {
        this.id = id;
        this.value = value;
    }

    @Override
    public String getId() {
        return id;
    }

    @Override
    public Class<String> getResultClass() {
        return String.class;
    }

    @Override
    public String call() {
        runs.incrementAndGet();
        return value;
    }
}
