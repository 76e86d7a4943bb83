package io.durablejournal.kafka;

import io.durablejournal.DurableCallable;
import io.durablejournal.demo.Request;
import io.durablejournal.demo.SideEffectLog;

/** A durable call of the demo's kind whose side effect is a line in the {@link SideEffectLog}. */
final class LoggedCall {
    private LoggedCall() {}

    /** Call {@code id} of {@code request}: appends its side effect to the log, returns {@code value (run n)}. */
    static DurableCallable<String> of(String sideEffectLog, Request request, String id, String value) {
        return DurableCallable.of(id, String.class,
                () -> value + " (run " + SideEffectLog.record(sideEffectLog, request.id, id) + ")");
    }
}
