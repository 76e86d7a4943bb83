package io.durablejournal.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durablejournal.bench.BenchSupport.Persistence;
import io.durablejournal.bench.BenchSupport.Recorder;
import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs after {@code gradle jmh}: prints each benchmark as a ratio against the baseline measured in
 * the same run (read from JMH's JSON results), Flink Agents 0.3.1 itself where it does the same
 * work, then the bytes Flink Agents, the whole-state persister and the file store write per action
 * (counted on one action each, not timed).
 *
 * <p>Usage: {@code BenchReport <results.json>}; a missing file (a failed or filtered-out run)
 * skips the ratio tables.
 */
public final class BenchReport {
    private static final String PKG = "io.durablejournal.bench.";
    private static final int[] RECORD_CALLS = {10, 100};
    private static final int[] PAYLOADS = {100, 10240};

    /** A JMH metric in nanoseconds per operation: its score, with the lowest and highest measured iteration. */
    private static final class Score {
        final double ns;
        final double minNs;
        final double maxNs;

        /** @param metric a result's {@code primaryMetric} or one of its {@code secondaryMetrics} */
        Score(JsonNode metric) {
            double scale = nanosPer(metric.get("scoreUnit").asText());
            double min = Double.NaN;
            double max = Double.NaN;
            for (JsonNode fork : metric.path("rawData")) {
                for (JsonNode iteration : fork) {
                    double value = iteration.asDouble() * scale;
                    min = Double.isNaN(min) ? value : Math.min(min, value);
                    max = Double.isNaN(max) ? value : Math.max(max, value);
                }
            }
            ns = metric.get("score").asDouble() * scale;
            minNs = min;
            maxNs = max;
        }

        @Override
        public String toString() {
            if (Double.isNaN(minNs)) {
                return time(ns);
            }
            String low = time(minNs);
            String high = time(maxNs);
            String unit = high.substring(high.indexOf(' '));
            return time(ns) + " (" + (low.endsWith(unit) ? low.substring(0, low.length() - unit.length()) : low) + "–" + high + ")";
        }
    }

    /** Wall-clock scores (JMH's primary result), by benchmark and parameters. */
    private final Map<String, Score> scores = new HashMap<>();
    /** CPU time per operation ({@link CpuTimeProfiler}), by benchmark and parameters. */
    private final Map<String, Score> cpuScores = new HashMap<>();

    public static void main(String[] args) throws Exception {
        BenchReport report = new BenchReport();
        File results = new File(args.length > 0 ? args[0] : "build/jmh/results.json");
        if (results.isFile() && results.length() > 0) {
            report.load(results);
            System.out.println();
            System.out.println("Ratios against the baseline measured in the same run (" + results + ").");
            System.out.println("Each score is an average, with the fastest and slowest measured iteration in parentheses. Tables 1 and 3");
            System.out.println("show CPU time per operation (all JVM threads, CpuTimeProfiler), which holds on a machine shared with other");
            System.out.println("work, and the wall-clock ratio in their last column; tables 2, 4 and 5 show wall-clock time.");
            report.printRecovery();
            report.printRecoveryBreakdown();
            report.printReplay();
            report.printRecord();
            report.printJni();
            report.printHandleOwner();
            report.printFlinkAgentsOperator();
        } else {
            System.out.println("No JMH results at " + results + " (the jmh run failed, was filtered to nothing, or listed only): no ratio tables.");
        }
        printBytes();
    }

    private void load(File file) throws Exception {
        for (JsonNode result : new ObjectMapper().readTree(file)) {
            StringBuilder key = new StringBuilder(result.get("benchmark").asText().replace(PKG, ""));
            JsonNode params = result.get("params");
            if (params != null) {
                Map<String, String> sorted = new TreeMap<>();
                params.fields().forEachRemaining(e -> sorted.put(e.getKey(), e.getValue().asText()));
                sorted.forEach((name, value) -> key.append(' ').append(name).append('=').append(value));
            }
            scores.put(key.toString(), new Score(result.get("primaryMetric")));
            JsonNode cpu = result.path("secondaryMetrics").get(CpuTimeProfiler.LABEL);
            if (cpu != null) {
                cpuScores.put(key.toString(), new Score(cpu));
            }
        }
    }

    private Score score(String benchmark, String params) {
        return scores.get(benchmark + (params.isEmpty() ? "" : " " + params));
    }

    /** The CPU time per operation where the run measured it, else the wall-clock score. */
    private Score cpu(String benchmark, String params) {
        Score cpu = cpuScores.get(benchmark + (params.isEmpty() ? "" : " " + params));
        return cpu != null ? cpu : score(benchmark, params);
    }

    /** Speed-up of {@code ours} over {@code baseline} by wall-clock time, for the last column of a table. */
    private String wallVersus(String baseline, String baselineParams, String ours, String oursParams) {
        Score base = score(baseline, baselineParams);
        Score our = score(ours, oursParams);
        return base == null || our == null ? "-" : versus(base, our);
    }

    private void printRecovery() {
        System.out.println();
        System.out.println("1. Recovery: a 16-call action re-run over its recorded state, journal opened in the timed region, 16 hits,");
        System.out.println("   vs Flink Agents 0.3.1 (its RunnerContextImpl and DurableExecutionContext over its recorded ActionState)");
        printAgainstFlinkAgents("Flink Agents 0.3.1", "RecoveryBenchmark.flinkAgents",
                "new DurableExecutionContext(state, p)", "RecoveryBenchmark.ours");
        System.out.println("   From what the store holds: Flink Agents decoding its stored record (ActionStateSerde) first,");
        System.out.println("   vs the journal reopened from the native file store (openContext)");
        printAgainstFlinkAgents("Flink Agents 0.3.1 from its record", "RecoveryBenchmark.flinkAgentsFromStoredRecord",
                "file store openContext", "RecoveryBenchmark.fileStore");
        System.out.println("   The Flink operators' re-run (DurableActionRunner): the entry read with store.get, 16 hits, the state");
        System.out.println("   taken to store the completed action; the store's journal opened at once (before) vs resuming");
        Table operator = new Table("payload", "get + openContext + snapshot", "get + resuming", "vs openContext", "wall clock",
                "of which store.get");
        printPerPayload(operator, PAYLOADS, this::cpu, (s, params) -> new String[] {s[0].toString(), s[1].toString(),
            versus(s[0], s[1]),
            wallVersus("RecoveryBenchmark.storeGetThenOpenContext", params, "RecoveryBenchmark.storeGetThenResuming", params),
            orDash(cpu("RecoveryBenchmark.storeGetOnly", params))},
                "RecoveryBenchmark.storeGetThenOpenContext", "RecoveryBenchmark.storeGetThenResuming");
    }

    /** A table of Flink Agents' benchmark against ours, a row per payload: CPU times, the speed-up, the wall-clock one. */
    private void printAgainstFlinkAgents(String theirTitle, String theirBenchmark, String ourTitle, String ourBenchmark) {
        Table table = new Table("payload", theirTitle, ourTitle, "vs Flink Agents", "wall clock");
        printPerPayload(table, PAYLOADS, this::cpu, (s, params) -> new String[] {s[0].toString(), s[1].toString(),
            versus(s[0], s[1]), wallVersus(theirBenchmark, params, ourBenchmark, params)}, theirBenchmark, ourBenchmark);
    }

    /** Where our recovery's time goes: creating the context, the 16 hits, and what a first miss would add. */
    private void printRecoveryBreakdown() {
        System.out.println();
        System.out.println("   Where it goes: a context over a Java ActionState copies it and answers the 16 hits from it (decoding");
        System.out.println("   each result); its native journal opens only at a call that is not a recorded hit (the state written");
        System.out.println("   as JSON and parsed by the core). From the file store: the journal opened, then one crossing per hit.");
        Table table = new Table("payload", "create + close", "16 hits", "native journal open (first miss)", "of which serialize",
                "file store open", "16 hits");
        // The hits are what a whole re-run takes beyond its open.
        printPerPayload(table, PAYLOADS, this::cpu, (s, params) -> new String[] {s[0].toString(), time(s[1].ns - s[0].ns),
            s[2].toString(), s[3].toString(), s[4].toString(), time(s[5].ns - s[4].ns)},
                "RecoveryBenchmark.oursOpenOnly", "RecoveryBenchmark.ours", "RecoveryBenchmark.oursNativeJournalOpen",
                "RecoveryBenchmark.oursSerializeOnly", "RecoveryBenchmark.fileStoreOpenOnly", "RecoveryBenchmark.fileStore");
        printPayloadDecode();
    }

    /** One recorded String result decoded: Jackson (Flink Agents' way) against our checks. */
    private void printPayloadDecode() {
        System.out.println();
        System.out.println("   Decoding one recorded String result (PayloadDecodeBenchmark, wall clock): Jackson, as Flink Agents");
        System.out.println("   does, against the Java check, the native check, and decodeResult (native from "
                + "4096 B)");
        Table table = new Table("payload", "Jackson", "Java check", "native check", "decodeResult", "vs Jackson");
        String decoder = "io.durablejournal.PayloadDecodeBenchmark.";
        printPerPayload(table, new int[] {100, 1024, 4096, 10240}, this::score, (s, params) -> new String[] {s[0].toString(),
            s[1].toString(), s[2].toString(), s[3].toString(), versus(s[0], s[3])},
                decoder + "jackson", decoder + "javaCheck", decoder + "nativeCheck", decoder + "decodeResult");
    }

    private void printReplay() {
        System.out.println();
        System.out.println("2. Replay alone: the same 16 hits, the journal opened outside the timed region (per invocation),");
        System.out.println("   vs the same 16 callables run by new RunnerContextImpl(null); Jackson decoding the 16 results for reference");
        Table table = new Table("payload", "replay (16 calls)", "baseline: no context", "ratio", "cost per call",
                "Jackson decode per result");
        printPerPayload(table, PAYLOADS, this::score, (s, params) -> {
            Score decode = score("ReplayBenchmark.decodeOnly", params);
            return new String[] {s[0].toString(), s[1].toString(), ratio(s[0].ns / s[1].ns),
                time((s[0].ns - s[1].ns) / BenchSupport.REPLAY_CALLS),
                decode == null ? "-" : time(decode.ns / BenchSupport.REPLAY_CALLS)};
        }, "ReplayBenchmark.replay", "ReplayBenchmark.baselineNoContext");
    }

    private void printRecord() {
        System.out.println();
        System.out.println("3. Record path: one fresh action of n durableExecute calls with 1 KB results (open, n calls, complete, close)");
        System.out.println("   vs Flink Agents 0.3.1 itself (its RunnerContextImpl; every persist serializes the whole state with its");
        System.out.println("   ActionStateSerde, as its Kafka store does), and vs our runtime with such a whole-state persister");
        System.out.println("   (CPU time leaves out the file store's fsync waits; the wall-clock column has them)");
        Table table = new Table("n", "persistence", "CPU time per action", "per call", "vs Flink Agents", "vs whole-state",
                "wall clock vs Flink Agents");
        for (int n : RECORD_CALLS) {
            String theirParams = "calls=" + n + " persistence=" + Persistence.flinkAgents;
            Score theirs = cpu("RecordBenchmark.action", theirParams);
            Score whole = cpu("RecordBenchmark.action", "calls=" + n + " persistence=" + Persistence.wholeState);
            for (Persistence p : Persistence.values()) {
                String params = "calls=" + n + " persistence=" + p;
                Score s = cpu("RecordBenchmark.action", params);
                if (s != null) {
                    boolean baseline = p == Persistence.flinkAgents;
                    table.row(Integer.toString(n), describe(p), s.toString(), time(s.ns / n),
                            theirs == null ? "-" : baseline ? "1 (baseline)" : versus(theirs, s),
                            whole == null || baseline ? "-" : p == Persistence.wholeState ? "1" : versus(whole, s),
                            baseline ? "-" : wallVersus("RecordBenchmark.action", theirParams, "RecordBenchmark.action", params));
                }
            }
        }
        table.print();
    }

    private void printJni() {
        System.out.println();
        System.out.println("4. JNI boundary: reading a slot's 4-tuple (result payload copied) vs getCurrentCallIndex(), the cheapest native call");
        Table table = new Table("payload", "getCurrentCallIndex", "getCurrentCallResultFields", "ratio", "getCallResultFieldsAt(8)", "ratio");
        printPerPayload(table, PAYLOADS, this::score, (s, params) -> new String[] {s[0].toString(), s[1].toString(),
            ratio(s[1].ns / s[0].ns), s[2].toString(), ratio(s[2].ns / s[0].ns)},
                "JniBoundaryBenchmark.baselineCurrentCallIndex", "JniBoundaryBenchmark.currentCallResultFields",
                "JniBoundaryBenchmark.callResultFieldsAt");
    }

    private void printHandleOwner() {
        String owner = "io.durablejournal.HandleOwnerBenchmark.";
        Score unguarded = score(owner + "unguarded", "");
        Score monitor = score(owner + "synchronizedOwner", "");
        Score handle = score(owner + "nativeHandleOwner", "");
        if (unguarded == null || monitor == null || handle == null) {
            return;
        }
        System.out.println();
        System.out.println("5. Handle owner: getCurrentCallIndex() straight to the native method (baseline), through a synchronized");
        System.out.println("   owner (the pattern before NativeHandle), and through DurableExecutionContext's NativeHandle");
        Table table = new Table("native call alone", "synchronized owner", "overhead", "NativeHandle owner", "overhead");
        table.row(unguarded.toString(), monitor.toString(), time(monitor.ns - unguarded.ns), handle.toString(),
                time(handle.ns - unguarded.ns));
        table.print();
    }

    private static void printBytes() throws Exception {
        System.out.println();
        System.out.println("6. Bytes written per action of n calls of 1 KB (initial put, one persist per call, completion;");
        System.out.println("   counted on one action, not timed): Flink Agents 0.3.1's and our whole-state ActionStateSerde rewrites");
        System.out.println("   vs the file store's appended records");
        Table table = new Table("n", "Flink Agents 0.3.1", "whole-state rewrite", "file store", "vs Flink Agents");
        for (int n : RECORD_CALLS) {
            long theirs = bytesOfOneAction(Persistence.flinkAgents, n);
            long whole = bytesOfOneAction(Persistence.wholeState, n);
            long file = bytesOfOneAction(Persistence.fileStore, n);
            table.row(Integer.toString(n), bytes(theirs), bytes(whole), bytes(file), ratio((double) theirs / file) + " fewer");
        }
        table.print();
    }

    private static String bytes(long count) {
        return String.format(Locale.ROOT, "%,d B", count);
    }

    private static long bytesOfOneAction(Persistence persistence, int n) throws Exception {
        try (Recorder recorder = new Recorder(persistence, n)) {
            long before = Math.max(0, recorder.bytesWritten());
            recorder.runAction();
            return recorder.bytesWritten() - before;
        }
    }

    private static String describe(Persistence p) {
        switch (p) {
            case none:
                return "Java context, null persister";
            case wholeState:
                return "whole-state persister";
            case memoryStore:
                return "native in-memory store";
            case fileStore:
                return "native file store, group commit " + BenchSupport.GROUP_COMMIT_BATCH;
            default:
                return "Flink Agents 0.3.1, its ActionStateSerde per persist";
        }
    }

    /** The native journal against Flink Agents' own journal on its operator path, over the same store. */
    private void printFlinkAgentsOperator() {
        System.out.println();
        System.out.println("6. Flink Agents' operator path over the adapter's store (FlinkAgentsOperatorBenchmark): CPU time per action");
        System.out.println("   of n calls, the native journal vs Flink Agents 0.3.1's own journal (its DurableExecutionContext)");
        Table table = new Table("n", "payload", "record: Flink Agents", "native journal", "vs Flink Agents", "wall clock",
                "recover: Flink Agents", "native journal", "vs Flink Agents", "wall clock");
        for (int n : new int[] {1, 10, 100}) {
            for (int payload : PAYLOADS) {
                String base = "calls=" + n + " path=flinkAgents payloadBytes=" + payload;
                String ours = "calls=" + n + " path=nativeJournal payloadBytes=" + payload;
                Score recordTheirs = cpu("FlinkAgentsOperatorBenchmark.record", base);
                Score recordOurs = cpu("FlinkAgentsOperatorBenchmark.record", ours);
                Score recoverTheirs = cpu("FlinkAgentsOperatorBenchmark.recover", base);
                Score recoverOurs = cpu("FlinkAgentsOperatorBenchmark.recover", ours);
                if (recordTheirs == null || recordOurs == null || recoverTheirs == null || recoverOurs == null) {
                    continue;
                }
                table.row(String.valueOf(n), size(payload), recordTheirs.toString(), recordOurs.toString(),
                        versus(recordTheirs, recordOurs),
                        wallVersus("FlinkAgentsOperatorBenchmark.record", base, "FlinkAgentsOperatorBenchmark.record", ours),
                        recoverTheirs.toString(), recoverOurs.toString(), versus(recoverTheirs, recoverOurs),
                        wallVersus("FlinkAgentsOperatorBenchmark.recover", base, "FlinkAgentsOperatorBenchmark.recover", ours));
            }
        }
        table.print();
    }

    /** How a table reads a benchmark's time: {@link #cpu} or {@link #score} (wall clock). */
    private interface Measure {
        Score of(String benchmark, String params);
    }

    /** The cells of a payload's row after its size, from its benchmarks' scores (in the order named) and parameters. */
    private interface Cells {
        String[] of(Score[] scores, String params);
    }

    /**
     * Prints {@code table} with a row per payload: its size, then the {@code cells} of the scores
     * of {@code benchmarks} at that payload. A payload where one of them was not measured (a
     * filtered run) has no row.
     */
    private static void printPerPayload(Table table, int[] payloads, Measure measure, Cells cells, String... benchmarks) {
        for (int payload : payloads) {
            String params = "payloadBytes=" + payload;
            Score[] scores = new Score[benchmarks.length];
            for (int i = 0; i < benchmarks.length; i++) {
                scores[i] = measure.of(benchmarks[i], params);
            }
            if (!Arrays.asList(scores).contains(null)) {
                List<String> row = new ArrayList<>();
                row.add(size(payload));
                row.addAll(Arrays.asList(cells.of(scores, params)));
                table.row(row.toArray(new String[0]));
            }
        }
        table.print();
    }

    private static String orDash(Score score) {
        return score == null ? "-" : score.toString();
    }

    /** A plain-text table whose columns are as wide as their widest cell. */
    private static final class Table {
        private final List<String[]> rows = new ArrayList<>();

        Table(String... header) {
            rows.add(header);
        }

        void row(String... cells) {
            rows.add(cells);
        }

        void print() {
            int columns = rows.get(0).length;
            int[] widths = new int[columns];
            for (String[] cells : rows) {
                for (int i = 0; i < columns; i++) {
                    widths[i] = Math.max(widths[i], cells[i].length());
                }
            }
            for (String[] cells : rows) {
                StringBuilder line = new StringBuilder("   ");
                for (int i = 0; i < columns; i++) {
                    line.append(String.format(Locale.ROOT, "%-" + widths[i] + "s", cells[i])).append("  ");
                }
                System.out.println(line.toString().replaceAll("\\s+$", ""));
            }
        }
    }

    private static String size(int bytes) {
        return bytes >= 1024 ? bytes / 1024 + " KB" : bytes + " B";
    }

    /** How much faster (or slower) {@code ours} is than the {@code baseline} measured in the same run. */
    private static String versus(Score baseline, Score ours) {
        double speedUp = baseline.ns / ours.ns;
        return speedUp >= 1 ? ratio(speedUp) + " faster" : ratio(1 / speedUp) + " slower";
    }

    private static String ratio(double r) {
        return String.format(Locale.ROOT, r >= 10 ? "%,.0fx" : "%.1fx", r);
    }

    static String time(double ns) {
        if (Double.isNaN(ns)) {
            return "?";
        }
        double abs = Math.abs(ns);
        if (abs < 1_000) {
            return String.format(Locale.ROOT, abs < 10 ? "%.1f ns" : "%.0f ns", ns);
        }
        if (abs < 1_000_000) {
            return String.format(Locale.ROOT, abs < 10_000 ? "%.2f µs" : abs < 100_000 ? "%.1f µs" : "%.0f µs", ns / 1e3);
        }
        return String.format(Locale.ROOT, "%.2f ms", ns / 1e6);
    }

    private static double nanosPer(String unit) {
        switch (unit) {
            case "ns/op":
                return 1;
            case "us/op":
                return 1e3;
            case "ms/op":
                return 1e6;
            case "s/op":
                return 1e9;
            default:
                throw new IllegalArgumentException("unexpected JMH unit " + unit + " (the benchmarks run in AverageTime mode)");
        }
    }
}
