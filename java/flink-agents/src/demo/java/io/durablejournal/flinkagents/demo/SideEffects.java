package io.durablejournal.flinkagents.demo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.TreeMap;

/**
 * The outside world the demo agent changes: every executed call appends a line {@code
 * <requestId>/<call>} to a file outside Flink, which outlives any failover and any class loader.
 * A call that ran twice shows up as a repeated line.
 */
public final class SideEffects {
    /** One lock per JVM: both subtasks append without interleaving. */
    private static final Object LOCK = new Object();

    private SideEffects() {}

    /** Appends the call and returns how many times it has run, this run included. */
    public static int record(String file, String requestId, String call) throws IOException {
        String line = requestId + "/" + call;
        Path path = Paths.get(file);
        synchronized (LOCK) {
            int runs = counts(path).getOrDefault(line, 0) + 1;
            Files.write(path, (line + "\n").getBytes(StandardCharsets.UTF_8), StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
            return runs;
        }
    }

    /** How many times each call ran, by {@code <requestId>/<call>}. */
    public static Map<String, Integer> counts(Path file) throws IOException {
        Map<String, Integer> counts = new TreeMap<>();
        if (Files.exists(file)) {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (!line.isEmpty()) {
                    counts.merge(line, 1, Integer::sum);
                }
            }
        }
        return counts;
    }
}
