package io.durablejournal.demo;

import io.durablejournal.flink.replay.ActionReplay;
import io.durablejournal.flink.replay.ReplayReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * What the replay benchmarks ({@link ReplayBenchmark}, the Flink Agents one) share: their
 * arguments ({@code --actions N}, default 10,000; {@code --dir}), a fresh store directory, the
 * inputs, the 1 KB call result, and the measured line they print: the recording's time (the
 * baseline, in the same run), the replay's, and their ratio.
 */
public final class ReplayBenchmarkRun {
    /** Durable calls per action. */
    public static final int CALLS = 10;
    /** What each call returns. */
    public static final String KILOBYTE = new String(new char[1024]).replace('\0', 'x');

    public final int actions;
    /** The store directory (emptied), absolute. */
    public final Path dir;

    private ReplayBenchmarkRun(int actions, Path dir) {
        this.actions = actions;
        this.dir = dir;
    }

    /** Reads {@code args} and empties the store directory ({@code defaultDir} under the working directory unless {@code --dir}). */
    public static ReplayBenchmarkRun of(String[] args, String defaultDir) throws IOException {
        int actions = 10_000;
        Path dir = Paths.get("build", defaultDir);
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--actions": actions = Integer.parseInt(args[++i]); break;
                case "--dir": dir = Paths.get(args[++i]); break;
                default: throw new IllegalArgumentException("unknown argument " + args[i] + " (use --actions, --dir)");
            }
        }
        dir = dir.toAbsolutePath();
        if (Files.exists(dir)) {
            try (Stream<Path> walk = Files.walk(dir)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        Files.createDirectories(dir);
        return new ReplayBenchmarkRun(actions, dir);
    }

    /** One input record per action, each of a key of its own. */
    public List<String> inputs() {
        List<String> inputs = new ArrayList<>(actions);
        for (int i = 0; i < actions; i++) {
            inputs.add("request-" + i);
        }
        return inputs;
    }

    /** The recording job. */
    @FunctionalInterface
    public interface Recording {
        void run() throws Exception;
    }

    /**
     * Times {@code record}, then {@code replay}, and prints the measured line ({@code what}: the
     * kind of actions); exits 1 unless every action replayed unchanged.
     */
    public void measure(String what, Recording record, Callable<ReplayReport> replay) throws Exception {
        long recordStart = System.nanoTime();
        record.run();
        double recordSeconds = (System.nanoTime() - recordStart) / 1e9;

        long replayStart = System.nanoTime();
        ReplayReport report = replay.call();
        double replaySeconds = (System.nanoTime() - replayStart) / 1e9;
        int unchanged = report.summary().get(ActionReplay.Outcome.UNCHANGED);
        System.out.printf("recorded %d %s (%d calls of 1 KB each) in %.1f s; replayed them in %.1f s (%.2fx the recording); "
                + "%d unchanged%n", actions, what, CALLS, recordSeconds, replaySeconds, replaySeconds / recordSeconds, unchanged);
        if (unchanged != actions) {
            System.out.println(report.summaryLine());
            System.exit(1);
        }
    }
}
