package io.durablejournal.flinkagents;

import java.util.Base64;
import java.util.Objects;

/**
 * What a subtask's store hands Flink Agents to checkpoint: the native store's recovery marker,
 * tagged with the subtask and the parallelism it was taken at. Flink Agents keeps the markers in
 * union list state, so after a restore every subtask receives every subtask's markers and keeps
 * its own. The marker is a {@code String} ({@code durable-journal/1 <subtask>/<parallelism>
 * <base64>}): Flink Agents checkpoints it with a serializer for {@code Object}, and a JDK type
 * restores in any class loader.
 */
final class SubtaskMarker {
    private static final String PREFIX = "durable-journal/1 ";

    final int subtask;
    final int parallelism;
    final byte[] storeMarker;

    SubtaskMarker(int subtask, int parallelism, byte[] storeMarker) {
        this.subtask = subtask;
        this.parallelism = parallelism;
        this.storeMarker = Objects.requireNonNull(storeMarker, "storeMarker");
    }

    String encode() {
        return PREFIX + subtask + "/" + parallelism + " " + Base64.getEncoder().encodeToString(storeMarker);
    }

    /** Whether {@code marker} was written by {@link #encode()} (of any subtask). */
    static boolean isOurs(Object marker) {
        return marker instanceof String && ((String) marker).startsWith(PREFIX);
    }

    /** @throws IllegalArgumentException if the marker is ours in name but damaged */
    static SubtaskMarker decode(String marker) {
        try {
            String[] parts = marker.substring(PREFIX.length()).split(" ");
            String[] position = parts[0].split("/");
            if (parts.length != 2 || position.length != 2) {
                throw new IllegalArgumentException("expected '<subtask>/<parallelism> <base64>'");
            }
            return new SubtaskMarker(Integer.parseInt(position[0]), Integer.parseInt(position[1]),
                    Base64.getDecoder().decode(parts[1]));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("damaged durable-journal recovery marker in the checkpoint: '" + marker + "': "
                    + e.getMessage(), e);
        }
    }
}
