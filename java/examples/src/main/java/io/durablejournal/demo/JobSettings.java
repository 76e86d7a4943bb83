package io.durablejournal.demo;

import java.nio.file.Path;

/**
 * What a run of either operator's demo job takes (its own {@code AgentJob.Settings} adds the
 * rest): the constructor takes what every run needs, its work directory; the rest are defaults,
 * mutable for a short setup block.
 */
public class JobSettings {
    /**
     * The failover the defaults stage, named for the tests that check what it did: {@value}
     * requests, a completed checkpoint before request {@value #GATE}, request {@value #CRASH}
     * crashing once.
     */
    public static final int REQUESTS = 12;
    public static final int GATE = 5;
    public static final int CRASH = 7;

    public int requests = REQUESTS;
    /** The source waits before this request for a completed checkpoint (negative: no gate); see {@link RequestSource}. */
    public int gateAt = GATE;
    /** Index of the request that crashes once (negative: none); the gate's burst ends there. */
    public int crashAt = CRASH;
    public int parallelism = 2;
    /** False: the same job with no journal store, to show what it costs. */
    public boolean journal = true;
    /** The side-effect log and (by default) the stores live here. */
    public Path workDir;

    /** The defaults (the staged failover, journaled, parallelism 2), the run's files under {@code workDir}. */
    protected JobSettings(Path workDir) {
        this.workDir = workDir;
    }

    /** The last request the source emits in one burst after the gate. */
    public int burstEnd() {
        return crashAt >= 0 ? crashAt : gateAt;
    }

    /** The default file stores' directory (one subdirectory per subtask). */
    public Path storeDir() {
        return workDir.resolve("store");
    }

    /** The {@link SideEffectLog} of the run. */
    public Path sideEffectFile() {
        return workDir.resolve("side-effects.log");
    }
}
