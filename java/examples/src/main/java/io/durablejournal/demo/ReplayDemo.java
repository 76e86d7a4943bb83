package io.durablejournal.demo;

import io.durablejournal.DurableCallable;
import io.durablejournal.RunnerContextImpl;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flink.AgentAction;
import io.durablejournal.flink.DurableActionFunction;
import io.durablejournal.flink.replay.JournalReplayer;
import io.durablejournal.flink.replay.ReplayCandidate;
import io.durablejournal.flink.replay.ReplayReport;
import io.durablejournal.flink.replay.ReplaySelection;
import io.durablejournal.store.FileStoreOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * {@code gradle demo -PdemoArgs=--replay}: records a support agent's run on a local Flink with
 * retention on, then replays it against a candidate with a changed prompt and an extra tool call,
 * first without and then with a stub for that call, and prints both reports. Nothing of the
 * recording runs again: the side-effect counter is printed (0) and checked.
 */
final class ReplayDemo {
    /** Calls that really ran (the recording's); a replay must not add to it. */
    static final AtomicInteger SIDE_EFFECTS = new AtomicInteger();

    private ReplayDemo() {}

    private static DurableCallable<String> call(String id, String value) {
        return DurableCallable.of(id, String.class, () -> {
            SIDE_EFFECTS.incrementAndGet();
            return value;
        });
    }

    /** The agent in production: a chat call and a ticket lookup. */
    static String agent(String request, RunnerContextImpl ctx) throws Exception {
        String reply = ctx.durableExecute(call("chat", "Sorry about '" + request + "', we are on it."));
        String ticket = ctx.durableExecute(call("tool:ticket", "T-" + Math.abs(request.hashCode() % 1000)));
        return reply + " (" + ticket + ")";
    }

    /** The change: a friendlier prompt wrapping the reply, and an e-mail to the customer. */
    static String candidate(String request, RunnerContextImpl ctx) throws Exception {
        String reply = ctx.durableExecute(call("chat", "unused: replayed"));
        String ticket = ctx.durableExecute(call("tool:ticket", "unused: replayed"));
        String mail = ctx.durableExecute(call("tool:mail", "mail sent"));
        return "Hi! " + reply + " (" + ticket + ", " + mail + ")";
    }

    static boolean run(Path workDir) throws Exception {
        Path base = Files.createDirectories(workDir.resolve("replay"));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        FileStoreOptions options = FileStoreOptions.defaults().retainCompleted(Duration.ofDays(1), 1000).planDigest("support-v1");
        AgentAction<String, String> production = ReplayDemo::agent;
        env.fromData("my order is late", "refund please", "the app crashes")
                .keyBy(r -> r, Types.STRING)
                .process(new DurableActionFunction<String, String, String>("support", production, String.class,
                        ActionStateStoreFactory.fileStores(base.toString(), options)), Types.STRING)
                .sinkTo(new DiscardingSink<>());
        env.execute("replay demo: recording");
        Path store = base.resolve("subtask-0");
        int recorded = SIDE_EFFECTS.get();
        System.out.println("recorded 3 requests with retention on (" + recorded + " calls ran) in " + store);
        System.out.println("  list them: target/release/durable-journal retained " + store);

        AgentAction<String, String> changed = ReplayDemo::candidate;
        ReplayCandidate<String, String> candidate = ReplayCandidate.of("support", changed, String.class, String.class);
        System.out.println("\nreplay against the candidate (changed prompt, extra tool:mail call):");
        ReplayReport report = JournalReplayer.of(candidate).replayStore(store, ReplaySelection.all());
        System.out.print(report.toTable());
        System.out.println("\nthe same with a stub for tool:mail:");
        ReplayReport stubbed = JournalReplayer.of(candidate.withStub("tool:mail", () -> "mail stubbed")).replayStore(store,
                ReplaySelection.all());
        System.out.print(stubbed.toTable());
        int ranDuringReplay = SIDE_EFFECTS.get() - recorded;
        System.out.println("\ncalls that ran during the replays: " + ranDuringReplay);
        return ranDuringReplay == 0 && report.getActions().size() == 3 && stubbed.getActions().size() == 3;
    }
}
