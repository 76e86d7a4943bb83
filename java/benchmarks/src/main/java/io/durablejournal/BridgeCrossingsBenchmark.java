package io.durablejournal;

import io.durablejournal.identity.DurableIds;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The crossings of Flink Agents' Python bridge primitives, which name a call by a function id and
 * an args digest: joined in a crossing of their own ({@code DurableIds.callIdWithDigest}, then the
 * primitive; a slot read split back by two more, {@code functionIdOfCallId} and {@code
 * argsDigestOfCallId}), the adapter's path before {@link SplitIdPrimitives}, against the parts
 * crossing with the primitive itself, which the core joins and splits ({@link
 * DurableExecutionContext#splitIdPrimitives()}). Each pair measures one primitive: a match that
 * misses on an empty journal (nothing changes), a recorded completion (the journal is replaced
 * every {@value #RECORDS_PER_JOURNAL} records, on both paths alike), and a read of the slot at
 * the index. The match's path before also took the divergence report in a crossing of its own
 * ({@code takeUnreportedDivergence}, after every miss under WARN), which {@link
 * #matchMissJoinedInJava()} makes as it did (so it sits in the core's package); a miss now gets
 * the report on its own crossing. {@link #baselineCurrentCallIndex()} is the cheapest crossing.
 * Run with {@code gradle --no-daemon :benchmarks:jmh -PjmhArgs='-f 1 -wi 3 -i 5 -w 1s -r 1s BridgeCrossings'}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class BridgeCrossingsBenchmark {
    private static final String FUNCTION_ID = "agent.tools.search";
    private static final String ARGS_DIGEST = "0123456789abcdef";
    private static final byte[] RESULT = "{\"hits\":3}".getBytes(StandardCharsets.UTF_8);
    static final int RECORDS_PER_JOURNAL = 1024;

    /** No slots: a match misses and changes nothing. */
    private DurableExecutionContext empty;
    /** One recorded slot at the index, read and never changed. */
    private DurableExecutionContext recorded;
    /** Takes the records, replaced every {@link #RECORDS_PER_JOURNAL}. */
    private DurableExecutionContext recording;
    private int records;

    @Setup(Level.Trial)
    public void open() {
        empty = new DurableExecutionContext(new ActionState(), null);
        ActionState state = new ActionState();
        state.addCallResult(new CallResult(DurableIds.callIdWithDigest(FUNCTION_ID, ARGS_DIGEST), RESULT, null));
        recorded = new DurableExecutionContext(state, null);
        recorded.getCurrentCallResultFields(); // opens its journal
        recording = new DurableExecutionContext(new ActionState(), null);
        Object[] split = readSplitByCore();
        if (!FUNCTION_ID.equals(split[0]) || !ARGS_DIGEST.equals(split[1]) || !java.util.Arrays.deepEquals(split, readSplitInJava())) {
            throw new IllegalStateException("the two paths read the slot differently: " + java.util.Arrays.toString(split));
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        empty.close();
        recorded.close();
        recording.close();
    }

    /** The journal the next record goes to: a fresh one every {@link #RECORDS_PER_JOURNAL}. */
    private DurableExecutionContext recording() {
        if (++records == RECORDS_PER_JOURNAL) {
            records = 0;
            recording.close();
            recording = new DurableExecutionContext(new ActionState(), null);
        }
        return recording;
    }

    @Benchmark
    public int baselineCurrentCallIndex() {
        return empty.getCurrentCallIndex();
    }

    @Benchmark
    public CallStep matchMissJoinedInJava() {
        byte[] id = DurableIds.callIdWithDigest(FUNCTION_ID, ARGS_DIGEST).getBytes(StandardCharsets.UTF_8);
        return empty.journal().apply(h -> {
            CallStep found = JournalJni.matchNextOrClearSubsequentCallResult(h, id, null, false);
            if (found == null && JournalJni.takeUnreportedDivergence(h) != null) {
                throw new IllegalStateException("an empty journal diverged");
            }
            return found;
        });
    }

    @Benchmark
    public Object[] matchMissJoinedByCore() {
        return empty.splitIdPrimitives().matchNextOrClearSubsequentCallResult(FUNCTION_ID, ARGS_DIGEST);
    }

    @Benchmark
    public void recordJoinedInJava() {
        recording().recordCallCompletion(DurableIds.callIdWithDigest(FUNCTION_ID, ARGS_DIGEST), RESULT, null);
    }

    @Benchmark
    public void recordJoinedByCore() {
        recording().splitIdPrimitives().recordCallCompletion(FUNCTION_ID, ARGS_DIGEST, RESULT, null);
    }

    @Benchmark
    public Object[] readSplitInJava() {
        Object[] whole = recorded.getCurrentCallResultFields();
        String id = (String) whole[0];
        return new Object[] {DurableIds.functionIdOfCallId(id), DurableIds.argsDigestOfCallId(id), whole[1], whole[2], whole[3]};
    }

    @Benchmark
    public Object[] readSplitByCore() {
        return recorded.splitIdPrimitives().getCurrentCallResultFields();
    }
}
