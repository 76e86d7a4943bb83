package io.durablejournal.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Collections;
import java.util.List;

/**
 * A fake external service that deduplicates requests by idempotency key, as payment and mail APIs
 * do, kept in files so that it outlives the processes calling it: every request is logged, and
 * its effect is applied only for a key it has not seen.
 */
final class DedupService {
    private final Path requests;
    private final Path effects;
    private final Path bodies;

    DedupService(Path dir) {
        this.requests = dir.resolve("requests");
        this.effects = dir.resolve("effects");
        this.bodies = dir.resolve("bodies");
    }

    /** A call's body started (what an at-most-once call promises to do once). */
    void bodyStarted(String callId) {
        append(bodies, callId);
    }

    /** Takes a request; applies its effect unless the key was seen. */
    void request(String idempotencyKey) {
        append(requests, idempotencyKey);
        if (!effects().contains(idempotencyKey)) {
            append(effects, idempotencyKey);
        }
    }

    /** Whether the service applied the effect of this key (what a reconciler asks). */
    boolean applied(String idempotencyKey) {
        return effects().contains(idempotencyKey);
    }

    List<String> requests() {
        return lines(requests);
    }

    List<String> effects() {
        return lines(effects);
    }

    List<String> bodies() {
        return lines(bodies);
    }

    private static List<String> lines(Path file) {
        try {
            return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : Collections.emptyList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void append(Path file, String line) {
        try {
            Files.write(file, (line + "\n").getBytes(StandardCharsets.UTF_8), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
