package io.durablejournal.demo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The outside world an agent changes: every executed call (a chat request, a tool call) appends
 * one line {@code <requestId>/<callId>} to a file outside Flink, which survives any failover. A
 * side effect that ran twice shows up as a repeated line.
 */
public final class SideEffectLog {
    /** One JVM-wide lock: subtasks count and append without interleaving. */
    private static final Object LOCK = new Object();

    private SideEffectLog() {}

    /** Appends the call and returns how many times it has run now, this run included. */
    public static int record(String file, String requestId, String callId) throws IOException {
        String line = requestId + "/" + callId;
        Path path = Paths.get(file);
        synchronized (LOCK) {
            int earlier = 0;
            if (Files.exists(path)) {
                for (String existing : Files.readAllLines(path, StandardCharsets.UTF_8)) {
                    if (existing.equals(line)) {
                        earlier++;
                    }
                }
            }
            Files.write(path, (line + "\n").getBytes(StandardCharsets.UTF_8), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            return earlier + 1;
        }
    }

    /** How many times each call ran, by {@code <requestId>/<callId>}. */
    public static Map<String, Integer> counts(Path file) throws IOException {
        Map<String, Integer> counts = new TreeMap<>();
        if (Files.exists(file)) {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            for (String line : lines) {
                if (!line.isEmpty()) {
                    counts.merge(line, 1, Integer::sum);
                }
            }
        }
        return counts;
    }

    /** Executions beyond the first, summed over all calls. */
    public static int duplicates(Map<String, Integer> counts) {
        int duplicates = 0;
        for (int n : counts.values()) {
            duplicates += n - 1;
        }
        return duplicates;
    }
}
