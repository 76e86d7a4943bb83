package io.durablejournal.testing;

import java.util.Map;
import java.util.TreeMap;

/** The side effects that ran more than once, from a count of runs per side effect. */
public final class RepeatedRuns {
    private RepeatedRuns() {}

    /** The entries of {@code runsPerSideEffect} whose count is not 1, sorted; empty when each ran once. */
    public static Map<String, Integer> of(Map<String, Integer> runsPerSideEffect) {
        Map<String, Integer> repeated = new TreeMap<>(runsPerSideEffect);
        repeated.values().removeIf(n -> n == 1);
        return repeated;
    }
}
