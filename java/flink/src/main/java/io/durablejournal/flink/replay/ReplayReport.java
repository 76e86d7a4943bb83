package io.durablejournal.flink.replay;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The side-by-side report of a replay: one {@link ActionReplay} per recorded action, a summary
 * (how many of each {@link ActionReplay.Outcome}), the recorded action names the candidate did
 * not replay, as JSON for machines ({@link #toJson}) and a table for people ({@link #toTable}),
 * and the exit status a CI step fails on ({@link #exitStatus}).
 */
public final class ReplayReport {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** Every outcome but UNCHANGED fails a CI step by default. */
    public static final Set<ActionReplay.Outcome> FAIL_ON_ANY_CHANGE = Collections.unmodifiableSet(
            EnumSet.complementOf(EnumSet.of(ActionReplay.Outcome.UNCHANGED)));

    /** The outcomes a replay of the project's operators' actions can have (one action per input record). */
    public static final Set<ActionReplay.Outcome> OPERATOR_OUTCOMES = Collections.unmodifiableSet(
            EnumSet.complementOf(EnumSet.of(ActionReplay.Outcome.NOT_TRIGGERED, ActionReplay.Outcome.NEWLY_TRIGGERED)));

    private final String candidateAction;
    private final List<ActionReplay> actions;
    private final Map<String, Integer> otherActions;
    /** The outcomes the summary counts (those this kind of replay can have). */
    private final Set<ActionReplay.Outcome> outcomes;

    ReplayReport(String candidateAction, List<ActionReplay> actions, Map<String, Integer> otherActions) {
        this(candidateAction, actions, otherActions, OPERATOR_OUTCOMES);
    }

    /**
     * A report of {@code actions}; {@code otherActions}: recorded action names the candidate did not
     * replay, with their counts; {@code outcomes}: the outcomes the summary counts (zeros included),
     * which must include every action's.
     */
    public ReplayReport(String candidateAction, List<ActionReplay> actions, Map<String, Integer> otherActions,
            Set<ActionReplay.Outcome> outcomes) {
        this.outcomes = Collections.unmodifiableSet(EnumSet.copyOf(outcomes));
        for (ActionReplay action : actions) {
            if (!this.outcomes.contains(action.outcome)) {
                throw new IllegalArgumentException("outcome " + action.outcome + " is not among the report's " + outcomes);
            }
        }
        this.candidateAction = candidateAction;
        this.actions = Collections.unmodifiableList(new ArrayList<>(actions));
        this.otherActions = Collections.unmodifiableMap(new LinkedHashMap<>(otherActions));
    }

    public List<ActionReplay> getActions() {
        return actions;
    }

    /** Recorded actions the selection took under another name than the candidate's, by name. */
    public Map<String, Integer> getOtherActions() {
        return otherActions;
    }

    /** How many actions had each outcome (every outcome of the report's kind present, zeros included). */
    public Map<ActionReplay.Outcome, Integer> summary() {
        Map<ActionReplay.Outcome, Integer> counts = new EnumMap<>(ActionReplay.Outcome.class);
        for (ActionReplay.Outcome outcome : outcomes) {
            counts.put(outcome, 0);
        }
        for (ActionReplay action : actions) {
            counts.merge(action.outcome, 1, Integer::sum);
        }
        return counts;
    }

    /** 1 when an action's outcome is in {@code failOn}, else 0: what a CI step exits with. */
    public int exitStatus(Set<ActionReplay.Outcome> failOn) {
        return actions.stream().anyMatch(a -> failOn.contains(a.outcome)) ? 1 : 0;
    }

    /** One line: "3 replayed: 1 unchanged, 1 diverged, 1 would run, 0 output changes, ...". */
    public String summaryLine() {
        Map<ActionReplay.Outcome, Integer> counts = summary();
        StringBuilder line = new StringBuilder().append(actions.size()).append(" replayed of ").append(candidateAction).append(':');
        String separator = " ";
        for (Map.Entry<ActionReplay.Outcome, Integer> count : counts.entrySet()) {
            line.append(separator).append(count.getValue()).append(' ').append(name(count.getKey()));
            separator = ", ";
        }
        if (!otherActions.isEmpty()) {
            line.append("; not replayed, other action names: ").append(otherActions);
        }
        return line.toString();
    }

    private static String name(ActionReplay.Outcome outcome) {
        return outcome.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    public String toJson() {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("candidateAction", candidateAction);
        ObjectNode summary = root.putObject("summary");
        summary.put("replayed", actions.size());
        summary().forEach((outcome, n) -> summary.put(name(outcome), n));
        ObjectNode others = root.putObject("otherActions");
        otherActions.forEach(others::put);
        ArrayNode list = root.putArray("actions");
        for (ActionReplay a : actions) {
            ObjectNode node = list.addObject();
            node.put("key", a.key);
            node.put("seq", a.seq);
            node.put("action", a.actionName);
            node.put("planDigest", a.planDigest);
            node.put("outcome", name(a.outcome));
            node.put("recordedCalls", a.recordedCalls);
            node.put("replayedCalls", a.replayedCalls);
            ArrayNode stubbed = node.putArray("stubbedCalls");
            a.stubbedCalls.forEach(stubbed::add);
            if (a.stop == null) {
                node.putNull("stop");
            } else {
                ObjectNode stop = node.putObject("stop");
                stop.put("kind", name(a.stop.kind));
                stop.put("position", a.stop.position);
                stop.put("recordedId", a.stop.recordedId);
                stop.put("recordedStatus", a.stop.recordedStatus);
                stop.put("candidateId", a.stop.candidateId);
                // Java durable calls carry their whole identity in the id: no separate args digest.
                stop.putNull("candidateArgsDigest");
            }
            node.put("outputsEqual", a.outcome == ActionReplay.Outcome.UNCHANGED);
            ArrayNode recorded = node.putArray("recordedOutputs");
            a.recordedOutputs.forEach(recorded::add);
            ArrayNode candidate = node.putArray("candidateOutputs");
            a.candidateOutputs.forEach(candidate::add);
            ArrayNode recordedMemory = node.putArray("recordedMemoryUpdates");
            a.recordedMemoryUpdates.forEach(recordedMemory::add);
            ArrayNode candidateMemory = node.putArray("candidateMemoryUpdates");
            a.candidateMemoryUpdates.forEach(candidateMemory::add);
            ArrayNode oldPaths = node.putArray("oldPaths");
            a.oldPaths.forEach(oldPaths::add);
            node.put("memory", a.memory);
            node.put("detail", a.detail);
        }
        try {
            return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(root);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** What changed in an action's outputs and memory updates: "recorded [..] -> [..]" for each that differs. */
    private static String outputChange(ActionReplay a) {
        boolean memoryChanged = !a.recordedMemoryUpdates.equals(a.candidateMemoryUpdates);
        String outputs = memoryChanged && a.recordedOutputs.equals(a.candidateOutputs) ? ""
                : "recorded " + a.recordedOutputs + " -> " + a.candidateOutputs;
        String memory = memoryChanged ? " memory updates recorded " + a.recordedMemoryUpdates + " -> " + a.candidateMemoryUpdates : "";
        return (outputs + memory).trim();
    }

    /** For people: one row per action, then the summary line. */
    public String toTable() {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"key", "seq", "action", "outcome", "calls", "detail"});
        for (ActionReplay a : actions) {
            String detail = a.detail != null ? a.detail
                    : a.stop != null ? a.stop.describe()
                    : a.outcome == ActionReplay.Outcome.OUTPUT_CHANGED ? outputChange(a)
                    : "";
            if (!a.stubbedCalls.isEmpty()) {
                detail = (detail + " stubbed " + a.stubbedCalls).trim();
            }
            if (!a.oldPaths.isEmpty()) {
                detail = (detail + " old path of " + a.oldPaths).trim();
            }
            rows.add(new String[] {a.key, String.valueOf(a.seq), a.actionName, name(a.outcome),
                    a.replayedCalls + "/" + a.recordedCalls + " replayed", detail});
        }
        int[] widths = new int[6];
        for (String[] row : rows) {
            for (int c = 0; c < row.length; c++) {
                widths[c] = Math.max(widths[c], row[c].length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < row.length; c++) {
                line.append(c == row.length - 1 ? row[c] : String.format("%-" + widths[c] + "s  ", row[c]));
            }
            out.append(line.toString().replaceAll("\\s+$", "")).append('\n');
        }
        return out.append(summaryLine()).append('\n').toString();
    }
}
