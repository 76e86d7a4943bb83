package io.durablejournal.demo;

import io.durablejournal.DurableCallable;
import io.durablejournal.RunnerContextImpl;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flink.AgentAction;
import io.durablejournal.flink.DurableActionFunction;
import io.durablejournal.flink.replay.ActionReplay;
import io.durablejournal.flink.replay.JournalReplayer;
import io.durablejournal.flink.replay.ReplayCandidate;
import io.durablejournal.flink.replay.ReplayReport;
import io.durablejournal.flink.replay.ReplaySelection;
import io.durablejournal.store.FileStoreOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * {@code gradle :examples:replayBenchmark [-PbenchArgs='--actions 10000']}: records a MiniCluster
 * job of N actions (default 10,000), each of 10 durable calls returning 1 KB, with retention on
 * (group commit, so the recording is not bound by fsyncs), then replays every recorded action
 * through the unchanged action and prints both times and their ratio. The recording, measured in
 * the same run, is the baseline. docs/replay.md quotes the numbers.
 */
public final class ReplayBenchmark {
    private static final int CALLS = 10;
    private static final String KILOBYTE = new String(new char[1024]).replace('\0', 'x');

    private ReplayBenchmark() {}

    static String action(String input, RunnerContextImpl ctx) throws Exception {
        int total = 0;
        for (int i = 0; i < CALLS; i++) {
            total += ctx.durableExecute(DurableCallable.of("call-" + i, String.class, () -> KILOBYTE)).length();
        }
        return input + ":" + total;
    }

    public static void main(String[] args) throws Exception {
        int actions = 10_000;
        Path dir = Paths.get("build", "replay-benchmark");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--actions": actions = Integer.parseInt(args[++i]); break;
                case "--dir": dir = Paths.get(args[++i]); break;
                default: throw new IllegalArgumentException("unknown argument " + args[i] + " (use --actions, --dir)");
            }
        }
        dir = dir.toAbsolutePath();
        if (Files.exists(dir)) {
            try (java.util.stream.Stream<Path> walk = Files.walk(dir)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        Files.createDirectories(dir);
        List<String> inputs = new ArrayList<>(actions);
        for (int i = 0; i < actions; i++) {
            inputs.add("request-" + i);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        FileStoreOptions options = FileStoreOptions.defaults().groupCommit(1000).retainCompleted(Duration.ofDays(1), actions);
        AgentAction<String, String> action = ReplayBenchmark::action;
        env.fromData(inputs)
                .keyBy(r -> r, Types.STRING)
                .process(new DurableActionFunction<String, String, String>("bench", action, String.class,
                        ActionStateStoreFactory.fileStores(dir.toString(), options)), Types.STRING)
                .sinkTo(new DiscardingSink<>());
        long recordStart = System.nanoTime();
        env.execute("replay benchmark: recording");
        double recordSeconds = (System.nanoTime() - recordStart) / 1e9;

        long replayStart = System.nanoTime();
        ReplayReport report = JournalReplayer.of(ReplayCandidate.of("bench", action, String.class, String.class))
                .replayStore(dir.resolve("subtask-0"), ReplaySelection.all());
        double replaySeconds = (System.nanoTime() - replayStart) / 1e9;
        int unchanged = report.summary().get(ActionReplay.Outcome.UNCHANGED);
        System.out.printf("recorded %d actions (%d calls of 1 KB each) in %.1f s; replayed them in %.1f s (%.2fx the recording); "
                + "%d unchanged%n", actions, CALLS, recordSeconds, replaySeconds, replaySeconds / recordSeconds, unchanged);
        if (unchanged != actions) {
            System.out.println(report.summaryLine());
            System.exit(1);
        }
    }
}
