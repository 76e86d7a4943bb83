package io.durablejournal.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The checkpoints a job left under its checkpoint directory (retained on cancellation or failure). */
public final class Checkpoints {
    private Checkpoints() {}

    /** The newest complete checkpoint ({@code chk-N} with its {@code _metadata}) under {@code checkpoints}. */
    public static Path latestRetained(Path checkpoints) throws Exception {
        try (Stream<Path> paths = Files.walk(checkpoints)) {
            return paths.filter(p -> p.getFileName().toString().equals("_metadata"))
                    .map(Path::getParent)
                    .filter(p -> p.getFileName().toString().startsWith("chk-"))
                    .max(Comparator.comparingInt(p -> Integer.parseInt(p.getFileName().toString().substring("chk-".length()))))
                    .orElseThrow(() -> new AssertionError("no retained checkpoint under " + checkpoints));
        }
    }
}
