package io.durablejournal.flinkagents.demo;

import io.durablejournal.demo.SideEffectLog;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * The demo's {@link SideEffectLog}, under the name the Flink Agents adapter's tests read it by
 * (java/flink-agents, java/kafka): one log, one implementation.
 */
public final class SideEffects {
    private SideEffects() {}

    /** {@link SideEffectLog#counts}. */
    public static Map<String, Integer> counts(Path file) throws IOException {
        return SideEffectLog.counts(file);
    }
}
