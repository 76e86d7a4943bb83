package io.durablejournal.flinkagents.demo;

import io.durablejournal.demo.SideEffectLog;
import java.util.concurrent.Callable;
import org.apache.flink.agents.api.context.DurableCallable;

/**
 * The demo agents' durable call: its body appends {@code <requestId>/<callId>} to the side-effect
 * log, then returns {@code result}'s value with how many times the call has run ({@code "… (run
 * 1)"}; a {@code null} stays {@code null}), or throws what {@code result} throws.
 */
public final class SideEffectCall implements DurableCallable<String> {
    private final String callId;
    private final String sideEffects;
    private final String requestId;
    private final Callable<String> result;
    private final Runnable executed;

    /** @param executed runs once the side effect is recorded (a run's counter), or null */
    public SideEffectCall(String callId, String sideEffects, String requestId, Callable<String> result, Runnable executed) {
        this.callId = callId;
        this.sideEffects = sideEffects;
        this.requestId = requestId;
        this.result = result;
        this.executed = executed;
    }

    @Override
    public String getId() {
        return callId;
    }

    @Override
    public Class<String> getResultClass() {
        return String.class;
    }

    @Override
    public String call() throws Exception {
        int run = SideEffectLog.record(sideEffects, requestId, callId);
        if (executed != null) {
            executed.run();
        }
        String value = result.call();
        return value == null ? null : value + " (run " + run + ")";
    }
}
