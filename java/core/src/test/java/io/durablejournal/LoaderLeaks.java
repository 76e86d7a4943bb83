package io.durablejournal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Runs {@link LoaderLeakProbe} in a child JVM of its own (so its RSS and {@code /proc/self/maps}
 * hold nothing but the rounds) and checks what a cluster needs of a job's class loaders: every
 * one collected, every copy of the native library unmapped, and RSS that does not grow with the
 * rounds. Shared by the loader tests of the core, the Kafka store and the Flink Agents adapter.
 */
public final class LoaderLeaks {
    /** Class loaders made, one durable call each, as many job resubmits on one TaskManager. */
    public static final int ROUNDS = 50;
    /** RSS growth is measured from this round on: the first rounds warm up the JVM itself. */
    public static final int WARM_ROUNDS = 10;
    /** The most RSS may grow per round after the warm ones. */
    public static final long MAX_GROWTH_KB_PER_ROUND = 512;

    private static final Pattern CHECKPOINT =
            Pattern.compile("CHECKPOINT (\\w+) rounds=(\\d+) collected=(\\d+) mappings=(\\d+) rssKb=(\\d+)");

    private LoaderLeaks() {}

    /** A checkpoint of the probe: after how many rounds, what it found. */
    public static final class Checkpoint {
        public final int rounds;
        public final int collected;
        public final int mappings;
        public final long rssKb;

        Checkpoint(Matcher line) {
            rounds = Integer.parseInt(line.group(2));
            collected = Integer.parseInt(line.group(3));
            mappings = Integer.parseInt(line.group(4));
            rssKb = Long.parseLong(line.group(5));
        }
    }

    /**
     * Runs {@code entry} (a {@code Callable} of the jars) in {@link #ROUNDS} fresh loaders over
     * {@code jars}, child first over a loader of {@code parentJars} (none: the platform loader),
     * and asserts that nothing is left behind; returns the probe's answer of the first round.
     */
    public static String assertNothingLeftBehind(String entry, List<Path> jars, List<Path> parentJars, Path workDir)
            throws IOException, InterruptedException {
        Path out = workDir.resolve("loader-probe-" + entry + ".txt");
        List<String> command = new ArrayList<>(Arrays.asList(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xcheck:jni", "-XX:+UseSerialGC", "-Xms96m", "-Xmx96m", "-XX:+AlwaysPreTouch",
                "-cp", probeClassPath(),
                LoaderLeakProbe.class.getName(), entry, Integer.toString(ROUNDS), Integer.toString(WARM_ROUNDS), join(jars)));
        if (!parentJars.isEmpty()) {
            command.add(join(parentJars));
        }
        Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        boolean finished = child.waitFor(240, TimeUnit.SECONDS);
        if (!finished) {
            child.destroyForcibly().waitFor();
        }
        List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
        String all = String.join("\n", lines);
        assertTrue(finished, "the probe finished:\n" + all);
        assertEquals(0, child.exitValue(), "the probe exited normally:\n" + all);
        List<String> jniComplaints = lines.stream()
                .filter(line -> line.contains("WARNING") || line.contains("FATAL"))
                .collect(Collectors.toList());
        assertEquals(List.of(), jniComplaints, "no JNI warning under -Xcheck:jni:\n" + all);

        Map<String, Checkpoint> checkpoints = new LinkedHashMap<>();
        for (String line : lines) {
            Matcher matcher = CHECKPOINT.matcher(line);
            if (matcher.matches()) {
                checkpoints.put(matcher.group(1), new Checkpoint(matcher));
            }
        }
        System.out.println("[loader leak] " + entry + ":\n" + all);
        Checkpoint start = checkpoints.get("start");
        Checkpoint warm = checkpoints.get("checkpoint");
        Checkpoint last = checkpoints.get("last");
        assertTrue(start != null && warm != null && last != null && checkpoints.containsKey("first"), all);
        for (Checkpoint checkpoint : checkpoints.values()) {
            assertEquals(checkpoint.rounds, checkpoint.collected, "every class loader was collected after "
                    + checkpoint.rounds + " rounds:\n" + all);
            assertEquals(start.mappings, checkpoint.mappings, "the library's mappings are back to where they were after "
                    + checkpoint.rounds + " rounds:\n" + all);
        }
        long growthPerRound = (last.rssKb - warm.rssKb) / (last.rounds - warm.rounds);
        System.out.println("[loader leak] " + entry + ": RSS " + growthPerRound + " KB per class loader after the first "
                + warm.rounds + ", mappings " + start.mappings + " before and " + last.mappings + " after, "
                + last.collected + " of " + last.rounds + " loaders collected");
        assertTrue(growthPerRound < MAX_GROWTH_KB_PER_ROUND, "RSS grew " + growthPerRound + " KB per class loader from round "
                + warm.rounds + " to " + last.rounds + ":\n" + all);
        return lines.stream().filter(line -> line.startsWith("ANSWER ")).map(line -> line.substring(7)).findFirst().orElse(null);
    }

    /** The jars of the test JVM's class path whose file names start with one of {@code prefixes}. */
    public static List<Path> classPathJars(String... prefixes) {
        List<Path> jars = new ArrayList<>();
        for (String element : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path path = Paths.get(element);
            String name = path.getFileName().toString();
            if (name.endsWith(".jar") && Arrays.stream(prefixes).anyMatch(name::startsWith)) {
                jars.add(path);
            }
        }
        return jars;
    }

    /** The directory or jar a class was loaded from. */
    public static Path locationOf(Class<?> type) {
        try {
            return Paths.get(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The probe's own class path: its directory alone (the rounds' loaders bring the rest). */
    private static String probeClassPath() {
        return locationOf(LoaderLeakProbe.class).toString();
    }

    private static String join(List<Path> paths) {
        return paths.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator));
    }
}
